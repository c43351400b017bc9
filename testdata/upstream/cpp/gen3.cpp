// gen3.cpp: the v3 part of the tsarrow C++-writer corpus, through the public API of the C++
// TsFile writer of 2024-10 (apache/tsfile cpp/ @ a9f54614, TsFileWriter, TsFile v3; tree model
// only, no STRING, no GZIP). Same values as gen.cpp (shared code copied), and, beside
// each FILE.tsfile, FILE.intended.csv: the rows the generator handed to the writer, in the
// interop CSV form (FLOAT/DOUBLE printed with the fewest digits that parse back bit-exactly).
//
// Usage: gen OUTDIR [NAME]   (NAME: write only that file; the program forks per file so a
// writer crash costs one file only)
//
// Own code of the tsarrow project, committed as documentation of how the corpus was made.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/db_common.h"
#include "common/config/config.h"
#include "common/global.h"
#include "common/record.h"
#include "common/schema.h"
#include "common/tablet.h"
#include "writer/tsfile_writer.h"

using namespace storage;
using common::TSDataType;
using common::TSEncoding;
using common::CompressionType;

// ---------------------------------------------------------------- values

struct Val {
  bool null = true;
  bool b = false;
  int32_t i = 0;
  int64_t l = 0;
  float f = 0;
  double d = 0;
  std::string s;
};

static std::string fmt_float(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  for (int p = 1; p <= 9; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, (double)v);
    if (strtof(buf, nullptr) == v && std::signbit(strtof(buf, nullptr)) == std::signbit(v)) break;
  }
  return buf;
}

static std::string fmt_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, v);
    if (strtod(buf, nullptr) == v && std::signbit(strtod(buf, nullptr)) == std::signbit(v)) break;
  }
  return buf;
}

static std::string cell(TSDataType t, const Val &v) {
  if (v.null) return "";
  switch (t) {
    case common::BOOLEAN: return v.b ? "true" : "false";
    case common::INT32: return std::to_string(v.i);
    case common::INT64: return std::to_string(v.l);
    case common::FLOAT: return fmt_float(v.f);
    case common::DOUBLE: return fmt_double(v.d);
    default: return v.s;
  }
}

// Value kinds. Every generator is a pure function of (row, column index).
enum Kind {
  K_CLEAN,     // decimals of 1-6 digits, -0.0, subnormals, large finite values, wide ints
  K_SPECIAL,   // NaN, +-Inf, -0.0, subnormals, FLT/DBL max, INT MIN/MAX
  K_OVERFLOW,  // DOUBLE near 1e308 (sums overflow), INT64 near 2^63, FLOAT near FLT_MAX
  K_SMOOTH,    // TS_2DIFF: this writer sizes a block's bit width with a signed subtraction
               // (cal_bit_width(max_delta - min_delta), 0 when that overflows) and loses the
               // block, so the clean TS_2DIFF columns keep their delta range inside the signed
               // range: small integers, FLOAT/DOUBLE all positive in [1, 501)
  K_NONNEG,    // INT32 under PLAIN: values in [0, 2^30), which this writer's PLAIN INT32
               // (uvarint(v << 1) instead of the zigzag varint) stores as a conformant reader
               // reads them; negative values it stores wrongly (see c21)
};

static const float kFloatClean[] = {-0.0f, 1e-40f, std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::min(), 3.4e37f, -12345.678f};
static const double kDoubleClean[] = {-0.0, 1e-310, std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::min(), 1.7e307, -98765.4321};

static double decimal_value(int r, int j) {
  // 1..6 decimals: round(x * 10^d) / 10^d, signs mixed.
  int d = 1 + (r + j) % 6;
  double scale = std::pow(10.0, d);
  double x = ((r * 7919 + j * 104729) % 200003) / 1000.0 - 100.0;
  return std::round(x * scale) / scale;
}

static Val make(Kind k, TSDataType t, int r, int j) {
  Val v;
  v.null = false;
  switch (t) {
    case common::BOOLEAN:
      v.b = ((r % 3) == 0) != ((r % 5) == 0);
      break;
    case common::INT32: {
      int32_t base = (int32_t)((r * 7919 + j * 31) % 20001) - 10000;
      if (k == K_SMOOTH) {
        const int32_t sp[] = {0, -1, 1, 123456, -123456, 1 << 28, -(1 << 28)};
        v.i = (r % 17 == 5) ? sp[(r / 17) % 7] : base;
      } else if (k == K_NONNEG) {
        const int32_t sp[] = {0, 1, (1 << 30) - 1, 123456789, 65535, 1 << 29, 7};
        v.i = (r % 17 == 5) ? sp[(r / 17) % 7] : base + 10000;
      } else if (k == K_CLEAN) {
        const int32_t sp[] = {0, -1, 1, (1 << 30) - 1, -(1 << 30), 123456789, -987654321};
        v.i = (r % 17 == 5) ? sp[(r / 17) % 7] : base;
      } else {
        const int32_t sp[] = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                              0, -1, std::numeric_limits<int32_t>::min() + 1,
                              std::numeric_limits<int32_t>::max() - 1};
        v.i = (r % 2 == 0) ? sp[(r / 2) % 6] : base;
      }
      break;
    }
    case common::INT64: {
      int64_t base = (int64_t)(r * 1000003LL + j) * 99991LL - 5000000000LL;
      if (k == K_SMOOTH) {
        const int64_t sp[] = {0, -1, 1LL << 53, (1LL << 53) + 1, -(1LL << 53), 1LL << 60};
        v.l = (r % 13 == 3) ? sp[(r / 13) % 6] : base;
      } else if (k == K_CLEAN) {
        const int64_t sp[] = {0, -1, 1LL << 53, (1LL << 53) + 1, -(1LL << 62), 4611686018427387903LL};
        v.l = (r % 13 == 3) ? sp[(r / 13) % 6] : base;
      } else if (k == K_SPECIAL) {
        const int64_t sp[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                              0, -1, std::numeric_limits<int64_t>::min() + 1,
                              std::numeric_limits<int64_t>::max() - 1};
        v.l = (r % 2 == 0) ? sp[(r / 2) % 6] : base;
      } else {  // near 2^63: the double sum leaves 2^53 far behind (one sign: see K_SMOOTH)
        v.l = std::numeric_limits<int64_t>::max() - (int64_t)(r * 977);
      }
      break;
    }
    case common::FLOAT:
      if (k == K_SMOOTH) {
        v.f = (float)(1.0 + std::fabs(decimal_value(r, j)) * 5.0);
      } else if (k == K_CLEAN) {
        v.f = (r % 11 == 4) ? kFloatClean[(r / 11) % 6] : (float)decimal_value(r, j);
      } else if (k == K_SPECIAL) {
        const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, std::numeric_limits<float>::denorm_min(),
                            -1e-40f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min()};
        v.f = (r % 2 == 0) ? sp[(r / 2) % 10] : (float)decimal_value(r, j);
      } else {
        v.f = std::numeric_limits<float>::max() * (1.0f - (float)(r % 7) * 0.01f);
      }
      break;
    case common::DOUBLE:
      if (k == K_SMOOTH) {
        v.d = 1.0 + std::fabs(decimal_value(r, j)) * 5.0;
        v.d = std::round(v.d * 1e6) / 1e6;
      } else if (k == K_CLEAN) {
        v.d = (r % 11 == 4) ? kDoubleClean[(r / 11) % 6] : decimal_value(r, j);
      } else if (k == K_SPECIAL) {
        const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, std::numeric_limits<double>::denorm_min(),
                             -1e-310, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::min()};
        v.d = (r % 2 == 0) ? sp[(r / 2) % 10] : decimal_value(r, j);
      } else {  // sums overflow to +Inf after two values
        v.d = 1e308 + (double)(r % 9) * 5e306;
        if (r % 5 == 4) v.d = 3.3e307;
      }
      break;
    default: {
      char buf[64];
      if (r % 9 == 2)
        snprintf(buf, sizeof buf, "\xc3\xbcnic\xc3\xb6" "de-%d", r);
      else
        snprintf(buf, sizeof buf, "s%d_%d", j, r * 37 % 1000);
      v.s = buf;
    }
  }
  return v;
}

// ---------------------------------------------------------------- columns

struct Col {
  std::string name;
  TSDataType type;
  TSEncoding enc;
  CompressionType comp;
  Kind kind = K_CLEAN;
  // null rule: returns true when row r of this column is null
  std::function<bool(int r)> is_null = [](int) { return false; };
};

static const char *type_name(TSDataType t) {
  switch (t) {
    case common::BOOLEAN: return "BOOLEAN";
    case common::INT32: return "INT32";
    case common::INT64: return "INT64";
    case common::FLOAT: return "FLOAT";
    case common::DOUBLE: return "DOUBLE";
    case common::TEXT: return "TEXT";
    default: return "?";
  }
}
static const char *enc_name(TSEncoding e) {
  switch (e) {
    case common::PLAIN: return "PLAIN";
    case common::TS_2DIFF: return "TS_2DIFF";
    case common::GORILLA: return "GORILLA";
    case common::RLE: return "RLE";
    case common::DICTIONARY: return "DICTIONARY";
    default: return "?";
  }
}
static const char *comp_name(CompressionType c) {
  switch (c) {
    case common::UNCOMPRESSED: return "UNCOMPRESSED";
    case common::SNAPPY: return "SNAPPY";
    case common::GZIP: return "GZIP";
    case common::LZO: return "LZO";
    case common::LZ4: return "LZ4";
    default: return "?";
  }
}

// The cells the C++ writer of this snapshot accepts (EncoderFactory::alloc_value_encoder).
struct Cell {
  TSDataType t;
  TSEncoding e;
};
static const Cell kCells[] = {
    {common::BOOLEAN, common::PLAIN},   {common::INT32, common::PLAIN},   {common::INT32, common::TS_2DIFF},
    {common::INT32, common::GORILLA},   {common::INT64, common::PLAIN},   {common::INT64, common::TS_2DIFF},
    {common::INT64, common::GORILLA},   {common::FLOAT, common::PLAIN},   {common::FLOAT, common::TS_2DIFF},
    {common::FLOAT, common::GORILLA},   {common::DOUBLE, common::PLAIN},  {common::DOUBLE, common::TS_2DIFF},
    {common::DOUBLE, common::GORILLA},
};

static std::string lower(std::string s) {
  for (auto &c : s) c = (char)tolower((unsigned char)c);
  return s;
}

static std::vector<Col> matrix_cols(CompressionType comp, Kind k, bool with_string, bool with_ts2diff = true) {
  std::vector<Col> cols;
  for (const Cell &c : kCells) {
    (void)with_string;  // no STRING in this writer
    if (c.e == common::TS_2DIFF && !with_ts2diff) continue;
    Col col;
    col.name = lower(std::string(type_name(c.t)) + "_" + enc_name(c.e));
    col.type = c.t;
    col.enc = c.e;
    col.comp = comp;
    col.kind = k;
    // Negative INT32 under PLAIN are lost by this writer in every file but c21.
    if (c.t == common::INT32 && c.e == common::PLAIN && k != K_OVERFLOW) col.kind = K_NONNEG;
    if (c.e == common::TS_2DIFF && k == K_CLEAN) col.kind = K_SMOOTH;
    cols.push_back(col);
  }
  return cols;
}

// ---------------------------------------------------------------- devices and output

// FILE.meta.json: what the generator asked the writer for (model, page size, time column,
// devices, columns with their null counts).
static std::string g_meta;
static uint32_t g_page_points;
static TSEncoding g_time_enc;
static CompressionType g_time_comp;

static std::string jstr(const std::string &s) { return "\"" + s + "\""; }

struct Device {
  std::string path;                 // tree: device path; table: "" (tags give it)
  std::vector<std::string> tags;    // table only
  int rows;
  std::function<int64_t(int r)> time = [](int r) { return 1700000000000LL + r * 1000LL; };
  // per-device override of the null rule (row, column index)
  std::function<bool(int r, int j)> null_rule;
  // > 0: write rows [0, flush_after) in one tablet, flush (a chunk group of its own), then the rest
  int flush_after = 0;
};

static std::vector<std::pair<int, int>> ranges(const Device &d) {
  if (d.flush_after > 0 && d.flush_after < d.rows) return {{0, d.flush_after}, {d.flush_after, d.rows}};
  return {{0, d.rows}};
}

struct Out {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

static void write_csv(const std::string &path, const Out &o) {
  FILE *f = fopen(path.c_str(), "w");
  for (size_t i = 0; i < o.header.size(); i++) fprintf(f, "%s%s", i ? "," : "", o.header[i].c_str());
  fprintf(f, "\n");
  for (auto &r : o.rows) {
    for (size_t i = 0; i < r.size(); i++) fprintf(f, "%s%s", i ? "," : "", r[i].c_str());
    fprintf(f, "\n");
  }
  fclose(f);
}

static Val make_col(const Col &c, int r, int j) { return make(c.kind, c.type, r, j); }

static bool is_null(const Device &d, const Col &c, int r, int j) {
  if (d.null_rule) return d.null_rule(r, j);
  return c.is_null(r);
}

static int set_tablet_value(Tablet &t, int r, int idx, const Col &c, const Val &v) {
  switch (c.type) {
    case common::BOOLEAN: return t.set_value(r, (uint32_t)idx, v.b);
    case common::INT32: return t.set_value(r, (uint32_t)idx, v.i);
    case common::INT64: return t.set_value(r, (uint32_t)idx, v.l);
    case common::FLOAT: return t.set_value(r, (uint32_t)idx, v.f);
    default: return t.set_value(r, (uint32_t)idx, v.d);
  }
}

#define CHECK(x)                                                         \
  do {                                                                   \
    int _rc = (x);                                                       \
    if (_rc != 0) {                                                      \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, _rc); \
      exit(10);                                                          \
    }                                                                    \
  } while (0)

struct TreeDev {
  Device d;
  bool aligned;
  std::vector<Col> cols;
};

static void write_tree(const std::string &path, std::vector<TreeDev> devs, Out &out) {
  TsFileWriter w;
  CHECK(w.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666));
  std::vector<std::string> names;
  std::map<std::string, int> pos;
  for (auto &td : devs)
    for (auto &c : td.cols)
      if (!pos.count(c.name)) {
        pos[c.name] = (int)names.size();
        names.push_back(c.name);
      }
  out.header = {"time", "device"};
  for (auto &n : names) out.header.push_back(n);
  g_meta = "{\"model\":\"tree\",\"devices\":[";
  for (size_t di = 0; di < devs.size(); di++) {
    auto &td = devs[di];
    g_meta += std::string(di ? "," : "") + "{\"path\":" + jstr(td.d.path) + ",\"aligned\":" +
              (td.aligned ? "true" : "false") + ",\"rows_written\":" + std::to_string(td.d.rows) +
              ",\"measurements\":[";
    for (size_t j = 0; j < td.cols.size(); j++) {
      auto &c = td.cols[j];
      int nulls = 0;
      for (int r = 0; r < td.d.rows; r++) nulls += is_null(td.d, c, r, (int)j);
      g_meta += std::string(j ? "," : "") + "{\"name\":" + jstr(c.name) +
                ",\"category\":\"MEASUREMENT\",\"type\":" + jstr(type_name(c.type)) +
                ",\"encoding\":" + jstr(enc_name(c.enc)) + ",\"compression\":" + jstr(comp_name(c.comp)) +
                ",\"null_count\":" + std::to_string(nulls) + "}";
    }
    g_meta += "]}";
  }
  g_meta += "]";
  for (auto &td : devs) {
    for (auto &c : td.cols) {
      if (td.aligned)
        CHECK(w.register_aligned_timeseries(td.d.path, c.name, c.type, c.enc, c.comp));
      else
        CHECK(w.register_timeseries(td.d.path, c.name, c.type, c.enc, c.comp));
    }
    std::vector<MeasurementSchema> schema;
    for (auto &c : td.cols) schema.push_back(MeasurementSchema(c.name, c.type, c.enc, c.comp));
    Tablet t(td.d.path, &schema, td.d.rows);
    CHECK(t.init());
    for (int r = 0; r < td.d.rows; r++) {
      CHECK(t.set_timestamp(r, td.d.time(r)));
      std::vector<std::string> row(2 + names.size());
      row[0] = std::to_string(td.d.time(r));
      row[1] = td.d.path;
      bool any = false;
      for (size_t j = 0; j < td.cols.size(); j++) {
        const Col &c = td.cols[j];
        if (is_null(td.d, c, r, (int)j)) continue;
        Val v = make_col(c, r, (int)j);
        CHECK(set_tablet_value(t, r, (int)j, c, v));
        row[2 + pos[c.name]] = cell(c.type, v);
        any = true;
      }
      if (any) out.rows.push_back(row);
    }
    if (!td.aligned) {
      CHECK(w.write_tablet(t));
      continue;
    }
    // Aligned rows go through write_record_aligned: this writer's write_tablet_aligned writes
    // the value columns but not the time column.
    for (int r = 0; r < td.d.rows; r++) {
      TsRecord rec(td.d.time(r), td.d.path, (int)td.cols.size());
      for (size_t j = 0; j < td.cols.size(); j++) {
        const Col &c = td.cols[j];
        bool null = is_null(td.d, c, r, (int)j);
        // A null point needs its type (DataPoint(name) leaves it unset and the writer skips the
        // point, shifting the column): the typed point with isnull set.
        Val v = null ? Val() : make_col(c, r, (int)j);
        switch (c.type) {
          case common::BOOLEAN: rec.append_data_point(DataPoint(c.name, v.b)); break;
          case common::INT32: rec.append_data_point(DataPoint(c.name, v.i)); break;
          case common::INT64: rec.append_data_point(DataPoint(c.name, v.l)); break;
          case common::FLOAT: rec.append_data_point(DataPoint(c.name, v.f)); break;
          default: rec.append_data_point(DataPoint(c.name, v.d)); break;
        }
        rec.points_.back().isnull = null;
      }
      CHECK(w.write_record_aligned(rec));
    }
  }
  CHECK(w.flush());
  CHECK(w.close());
}

struct Spec {
  std::string name;
  std::function<void(const std::string &path, Out &out)> run;
};

static void config(uint32_t page_points, TSEncoding time_enc, CompressionType time_comp) {
  libtsfile_init();
  g_page_points = page_points;
  g_time_enc = time_enc;
  g_time_comp = time_comp;
  set_page_max_point_count(page_points);
  common::g_config_value_.time_encoding_type_ = time_enc;
  common::g_config_value_.time_compress_type_ = time_comp;
}

static std::vector<Spec> corpus() {
  std::vector<Spec> specs;
  struct CompName {
    CompressionType c;
    const char *n;
  };
  const CompName comps[] = {{common::UNCOMPRESSED, "uncompressed"}, {common::SNAPPY, "snappy"}, {common::LZ4, "lz4"}};
  for (const CompName &cn : comps) {
    CompressionType comp = cn.c;
    // Every cell this writer has (no STRING), non-aligned: multi-page (300 rows, pages of 100),
    // single-page (7 rows) and one-value chunks, missing points.
    // Non-aligned chunks with SNAPPY or LZ4 crash this writer (free(): invalid pointer), so the
    // non-aligned file is UNCOMPRESSED only.
    if (comp == common::UNCOMPRESSED)
    specs.push_back({std::string("v3_c01_tree_nonaligned_") + cn.n, [comp](const std::string &p, Out &o) {
                       config(100, common::TS_2DIFF, comp);
                       auto cols = matrix_cols(comp, K_CLEAN, false);
                       for (size_t j = 0; j < cols.size(); j++)
                         cols[j].is_null = [j](int r) { return (r + (int)j) % 11 == 0; };
                       TreeDev a{Device{"root.sg.d1", {}, 300}, false, cols};
                       TreeDev b{Device{"root.sg.d2", {}, 7}, false, cols};
                       TreeDev c{Device{"root.sg.d3", {}, 1}, false, cols};
                       c.d.null_rule = [](int, int) { return false; };
                       write_tree(p, {a, b, c}, o);
                     }});
    // Aligned, nulls, time column in the same compression.
    specs.push_back({std::string("v3_c02_tree_aligned_") + cn.n, [comp](const std::string &p, Out &o) {
                       config(100, common::TS_2DIFF, comp);
                       auto cols = matrix_cols(comp, K_CLEAN, false);
                       for (size_t j = 0; j < cols.size(); j++)
                         cols[j].is_null = [j](int r) { return (r * 3 + (int)j) % 13 == 0; };
                       TreeDev a{Device{"root.sg.a1", {}, 300}, true, cols};
                       TreeDev b{Device{"root.sg.a2", {}, 7}, true, cols};
                       write_tree(p, {a, b}, o);
                     }});
  }
  specs.push_back({"v3_c10_tree_specials", [](const std::string &p, Out &o) {
                     config(10, common::TS_2DIFF, common::LZ4);
                     auto cols = matrix_cols(common::UNCOMPRESSED, K_SPECIAL, false, false);
                     TreeDev a{Device{"root.sp.d1", {}, 40}, false, cols};
                     TreeDev b{Device{"root.sp.a1", {}, 40}, true, matrix_cols(common::SNAPPY, K_SPECIAL, false, false)};
                     write_tree(p, {a, b}, o);
                   }});
  specs.push_back({"v3_c13_tree_overflow_sums", [](const std::string &p, Out &o) {
                     config(4, common::TS_2DIFF, common::UNCOMPRESSED);
                     std::vector<Col> cols;
                     for (const Cell &c : kCells) {
                       if (c.t != common::DOUBLE && c.t != common::INT64 && c.t != common::FLOAT) continue;
                       cols.push_back(Col{lower(std::string(type_name(c.t)) + "_" + enc_name(c.e)), c.t, c.e,
                                          common::UNCOMPRESSED, K_OVERFLOW});
                     }
                     TreeDev a{Device{"root.ov.d1", {}, 10}, false, cols};
                     TreeDev b{Device{"root.ov.d2", {}, 3}, false, cols};
                     TreeDev c{Device{"root.ov.a1", {}, 10}, true, cols};
                     write_tree(p, {a, b, c}, o);
                   }});
  specs.push_back({"v3_c15_tree_one_value_pages", [](const std::string &p, Out &o) {
                     config(1, common::TS_2DIFF, common::UNCOMPRESSED);
                     auto cols = matrix_cols(common::UNCOMPRESSED, K_CLEAN, false);
                     TreeDev a{Device{"root.one.d1", {}, 4}, false, cols};
                     TreeDev b{Device{"root.one.a1", {}, 4}, true, cols};
                     write_tree(p, {a, b}, o);
                   }});
  return specs;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gen OUTDIR [NAME]\n");
    return 2;
  }
  std::string dir = argv[1];
  int failures = 0;
  for (auto &s : corpus()) {
    if (argc > 2 && s.name != argv[2]) continue;
    pid_t pid = fork();
    if (pid == 0) {
      Out o;
      s.run(dir + "/" + s.name + ".tsfile", o);
      write_csv(dir + "/" + s.name + ".intended.csv", o);
      g_meta += ",\"page_max_point_count\":" + std::to_string(g_page_points) + ",\"time_encoding\":" +
                jstr(enc_name(g_time_enc)) + ",\"time_compression\":" + jstr(comp_name(g_time_comp)) + "}\n";
      FILE *mf = fopen((dir + "/" + s.name + ".meta.json").c_str(), "w");
      fputs(g_meta.c_str(), mf);
      fclose(mf);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      printf("ok   %s\n", s.name.c_str());
    } else {
      failures++;
      printf("FAIL %s (%s %d)\n", s.name.c_str(), WIFEXITED(st) ? "exit" : "signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    }
  }
  return failures ? 1 : 0;
}
