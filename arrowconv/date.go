package arrowconv

import (
	"fmt"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/civil"
)

// datesToDays converts DATE values from their stored decimal YYYYMMDD form to
// days since 1970-01-01 in place.
func datesToDays(v []int32) error {
	for i, x := range v {
		d, ok := dateToDays(x)
		if !ok {
			return fmt.Errorf("DATE value %d is not a valid YYYYMMDD date: %w", x, encoding.ErrCorrupt)
		}
		v[i] = d
	}
	return nil
}

// dateToDays converts one YYYYMMDD value in the proleptic Gregorian calendar
// (year 0 and later, as Java's LocalDate reads it) to days since the epoch.
func dateToDays(x int32) (int32, bool) {
	if x < 0 {
		return 0, false
	}
	y, m, d := int64(x/10000), int64(x/100%100), int64(x%100)
	if m < 1 || m > 12 || d < 1 || d > int64(daysIn(y, m)) {
		return 0, false
	}
	return int32(civil.Days(y, m, d)), true
}

func daysIn(y, m int64) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
