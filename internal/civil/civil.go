// Package civil converts between days since 1970-01-01 and dates of the
// proleptic Gregorian calendar, in plain integer arithmetic, for the
// readers and writers that turn TsFile's DATE (YYYYMMDD) into Arrow's
// date32 (days) and back, and for CSV's YYYY-MM-DD.
package civil

// Days returns the days since 1970-01-01 of year y, month m (1-12) and
// day d: Howard Hinnant's days_from_civil.
func Days(y, m, d int64) int64 {
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

// FromDays is the inverse of Days.
func FromDays(z int64) (y, m, d int64) {
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
