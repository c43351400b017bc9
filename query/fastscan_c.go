//go:build cgo && duckdb_arrow

package query

// The C loops of the scan's fill path: one cgo call per column and chunk
// instead of one per value. They live in a file of their own because a
// file with //export directives may hold only C declarations.
//
// The two DuckDB functions are declared here rather than by including
// duckdb.h, whose directory belongs to duckdb-go-bindings; the prototypes
// are those of DuckDB 2.0's C API (duckdb.h, stable since v1.5.6) and the
// symbols come from the static library duckdb-go-bindings links.

/*
#include <stdint.h>
#include <stddef.h>

void duckdb_unsafe_vector_assign_string_element_len(void *vector, uint64_t index, const char *str, uint64_t str_len);

static const char tsarrow_empty[1] = {0};

// tsarrow_assign_strings assigns rows [0, n) of vec from Arrow utf8 or
// binary offsets (n+1 of them) into data. A row whose bit (bitoff + row)
// in valid is clear gets the empty string, so that no row of the vector
// holds an uninitialized string header. The caller validated UTF-8.
static void tsarrow_assign_strings(void *vec, const int32_t *offs, const char *data, const uint8_t *valid, int64_t bitoff, uint64_t n) {
	if (data == NULL) {
		data = tsarrow_empty;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (valid != NULL) {
			int64_t b = bitoff + (int64_t)i;
			if (!((valid[b >> 3] >> (b & 7)) & 1)) {
				duckdb_unsafe_vector_assign_string_element_len(vec, i, tsarrow_empty, 0);
				continue;
			}
		}
		duckdb_unsafe_vector_assign_string_element_len(vec, i, data + offs[i], (uint64_t)(offs[i + 1] - offs[i]));
	}
}

// tsarrow_assign_dict assigns rows [0, n) of vec from int32 dictionary
// indices into a utf8 dictionary (offs, data); the caller checked every
// index of a valid row against the dictionary's length.
static void tsarrow_assign_dict(void *vec, const int32_t *idx, const int32_t *offs, const char *data, const uint8_t *valid, int64_t bitoff, uint64_t n) {
	if (data == NULL) {
		data = tsarrow_empty;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (valid != NULL) {
			int64_t b = bitoff + (int64_t)i;
			if (!((valid[b >> 3] >> (b & 7)) & 1)) {
				duckdb_unsafe_vector_assign_string_element_len(vec, i, tsarrow_empty, 0);
				continue;
			}
		}
		int32_t j = idx[i];
		duckdb_unsafe_vector_assign_string_element_len(vec, i, data + offs[j], (uint64_t)(offs[j + 1] - offs[j]));
	}
}
*/
import "C"

import "unsafe"

// assignStrings fills rows [0, len(offs)-1) of the DuckDB VARCHAR or BLOB
// vector vec from Arrow offsets and data; valid (nil: no nulls) is the
// Arrow validity bitmap and bitoff the first row's bit in it.
func assignStrings(vec unsafe.Pointer, offs []int32, data []byte, valid []byte, bitoff int) {
	n := len(offs) - 1
	if n <= 0 {
		return
	}
	C.tsarrow_assign_strings(vec, (*C.int32_t)(unsafe.Pointer(&offs[0])), cbytes(data), (*C.uint8_t)(unsafe.Pointer(cbytes(valid))), C.int64_t(bitoff), C.uint64_t(n))
}

// assignDict fills rows [0, len(idx)) of the DuckDB VARCHAR vector vec
// with the dictionary values idx points at.
func assignDict(vec unsafe.Pointer, idx []int32, offs []int32, data []byte, valid []byte, bitoff int) {
	if len(idx) == 0 {
		return
	}
	C.tsarrow_assign_dict(vec, (*C.int32_t)(unsafe.Pointer(&idx[0])), (*C.int32_t)(unsafe.Pointer(&offs[0])), cbytes(data), (*C.uint8_t)(unsafe.Pointer(cbytes(valid))), C.int64_t(bitoff), C.uint64_t(len(idx)))
}

// cbytes is b's first byte for C, or NULL for an empty slice.
func cbytes(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}
