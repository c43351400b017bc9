package arrowconv

import (
	"fmt"

	"github.com/tsarrow/tsarrow/encoding"
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
	return int32(daysFromCivil(y, m, d)), true
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

// daysFromCivil is Howard Hinnant's days_from_civil.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
