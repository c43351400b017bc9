//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// pdTables are the views the pushdown tests plan for: main.t (ms,
// TIMESTAMPTZ), db.w (ns, TIMESTAMP_NS) and main.u (us, TIMESTAMPTZ), each
// a view over a plain table as sqlcore's views are over tsfile_scan.
var pdTables = []tableMeta{
	{ID: "t", Schema: "main", Name: "t", Time: "time", Unit: arrow.Millisecond, Tags: []string{"region", "dev"}},
	{ID: "w", Schema: "db", Name: "w", Time: "time", Unit: arrow.Nanosecond, Tags: []string{"site"}},
	{ID: "u", Schema: "main", Name: "u", Time: "Time", Unit: arrow.Microsecond, Tags: []string{"Dev"}},
}

func pdOpen(t testing.TB) *sql.Conn {
	t.Helper()
	_, conn := openDB(t)
	for _, s := range []string{
		`SET TimeZone = 'UTC'`,
		`CREATE TABLE raw_t (id INTEGER, "time" TIMESTAMPTZ, region VARCHAR, dev VARCHAR, v BIGINT)`,
		`CREATE VIEW main.t AS SELECT * FROM raw_t`,
		`CREATE SCHEMA db`,
		`CREATE TABLE raw_w (id INTEGER, "time" TIMESTAMP_NS, site VARCHAR, x DOUBLE)`,
		`CREATE VIEW db.w AS SELECT * FROM raw_w`,
		`CREATE TABLE raw_u (id INTEGER, "Time" TIMESTAMPTZ, "Dev" VARCHAR, v BIGINT)`,
		`CREATE VIEW main.u AS SELECT * FROM raw_u`,
		`CREATE TABLE dim (region VARCHAR, name VARCHAR)`,
		`CREATE VIEW uv AS SELECT * FROM t`,
		`CREATE MACRO tm() AS TABLE SELECT * FROM t`,
		`CREATE MACRO sm() AS (SELECT count(*) FROM t)`,
	} {
		_, err := conn.ExecContext(context.Background(), s)
		require.NoError(t, err, s)
	}
	return conn
}

// ms is an instant in ms since the epoch, us in µs.
const (
	ms20240101 = int64(1704067200000)
	us20240101 = ms20240101 * 1000
	ns20240101 = ms20240101 * 1000000
)

func TestPlanPushdown(t *testing.T) {
	conn := pdOpen(t)
	ctx := context.Background()
	rng := func(s, e int64) pushdown { return pushdown{Start: s, End: e, HasStart: true, HasEnd: true} }
	from := func(s int64) pushdown { return pushdown{Start: s, HasStart: true} }
	upto := func(e int64) pushdown { return pushdown{End: e, HasEnd: true} }
	tags := func(pd pushdown, kv ...string) pushdown {
		pd.Tags = map[string][]string{}
		for i := 0; i < len(kv); i += 2 {
			pd.Tags[kv[i]] = append(pd.Tags[kv[i]], strings.Split(kv[i+1], ",")...)
		}
		return pd
	}
	limit := func(pd pushdown, n int64) pushdown { pd.Limit = n; return pd }
	none := map[string]pushdown{}
	day := int64(86400000)
	for _, tc := range []struct {
		name, tz, q string
		want        map[string]pushdown
	}{
		{"no where", "", `SELECT * FROM t`, none},
		{"ge string", "", `SELECT * FROM t WHERE time >= '2024-01-01'`, map[string]pushdown{"t": from(ms20240101)}},
		{"gt strict ms", "", `SELECT * FROM t WHERE time > '2024-01-01'`, map[string]pushdown{"t": from(ms20240101 + 1)}},
		{"gt finer const", "", `SELECT * FROM t WHERE time > '2024-01-01 00:00:00.0005'`, map[string]pushdown{"t": from(ms20240101 + 1)}},
		{"lt finer const", "", `SELECT * FROM t WHERE time < '2024-01-01 00:00:00.0005'`, map[string]pushdown{"t": upto(ms20240101)}},
		{"lt exact", "", `SELECT * FROM t WHERE time < TIMESTAMPTZ '2024-01-01 00:00:00+00'`, map[string]pushdown{"t": upto(ms20240101 - 1)}},
		{"eq finer is empty", "", `SELECT * FROM t WHERE time = '2024-01-01 00:00:00.0005'`, map[string]pushdown{"t": {Empty: true}}},
		{"const op time", "", `SELECT * FROM t WHERE '2024-01-02' > time AND DATE '2024-01-01' <= "TIME"`, map[string]pushdown{"t": rng(ms20240101, ms20240101+day-1)}},
		{"between", "", `SELECT * FROM t WHERE time BETWEEN TIMESTAMP '2024-01-01' AND TIMESTAMP '2024-01-02'`, map[string]pushdown{"t": rng(ms20240101, ms20240101+day)}},
		{"time zone", "Europe/Berlin", `SELECT * FROM t WHERE time >= '2024-01-01'`, map[string]pushdown{"t": from(ms20240101 - 3600000)}},
		{"time zone timestamp", "Asia/Kolkata", `SELECT * FROM t WHERE time >= TIMESTAMP '2024-01-01'`, map[string]pushdown{"t": from(ms20240101 - 19800000)}},
		{"explicit offset", "Asia/Kolkata", `SELECT * FROM t WHERE time >= '2024-01-01 00:00:00+00'`, map[string]pushdown{"t": from(ms20240101)}},
		{"expression", "", `SELECT * FROM t WHERE time >= TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL 1 DAY`, map[string]pushdown{"t": from(ms20240101 + day)}},
		{"empty range", "", `SELECT * FROM t WHERE time > '2024-01-02' AND time < '2024-01-01'`, map[string]pushdown{"t": {Empty: true}}},
		{"tag eq", "", `SELECT * FROM t WHERE region = 'north'`, map[string]pushdown{"t": tags(pushdown{}, "region", "north")}},
		{"tag in and eq", "", `SELECT * FROM t WHERE region IN ('a', 'b', 'c') AND 'b' = Region AND dev IN ('x')`, map[string]pushdown{"t": tags(pushdown{}, "region", "b", "dev", "x")}},
		{"tag disjoint", "", `SELECT * FROM t WHERE region = 'a' AND region = 'b'`, map[string]pushdown{"t": {Empty: true}}},
		{"tag quoted", "", `SELECT * FROM t WHERE "REGION" = 'a'`, map[string]pushdown{"t": tags(pushdown{}, "region", "a")}},
		{"tag int const", "", `SELECT * FROM t WHERE region = 5`, none},
		{"tag null", "", `SELECT * FROM t WHERE region = NULL AND time = NULL`, none},
		{"tag in null", "", `SELECT * FROM t WHERE region IN ('a', NULL)`, none},
		{"or", "", `SELECT * FROM t WHERE time > '2024-01-01' OR region = 'a'`, none},
		{"not", "", `SELECT * FROM t WHERE NOT (time > '2024-01-01') AND NOT region = 'a'`, none},
		{"cast on column", "", `SELECT * FROM t WHERE CAST(time AS DATE) = '2024-01-01' AND lower(region) = 'a'`, none},
		{"int const", "", `SELECT * FROM t WHERE time > 5`, none},
		{"now", "", `SELECT * FROM t WHERE time < now()`, none},
		{"random", "", `SELECT * FROM t WHERE time < TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(random())`, none},
		{"param", "", `SELECT * FROM t WHERE time > ? AND region = $1`, none},
		{"varchar expr", "", `SELECT * FROM t WHERE time > concat('2024-01', '-01')`, none},
		{"alias", "", `SELECT * FROM t AS x WHERE x.time >= '2024-01-01' AND x.region = 'a'`, map[string]pushdown{"t": tags(from(ms20240101), "region", "a")}},
		{"name qualifier", "", `SELECT * FROM main.t WHERE t.time >= '2024-01-01'`, map[string]pushdown{"t": from(ms20240101)}},
		{"wrong qualifier", "", `SELECT * FROM t AS x WHERE t.time >= '2024-01-01'`, none},
		{"column aliases", "", `SELECT * FROM t AS x(a, "time") WHERE "time" >= '2024-01-01'`, none},
		{"sample", "", `SELECT * FROM t TABLESAMPLE 50% WHERE time >= '2024-01-01'`, none},
		{"select sample", "", `SELECT * FROM t WHERE time >= '2024-01-01' USING SAMPLE 50%`, none},
		{"subquery", "", `SELECT count(*) FROM (SELECT * FROM t WHERE time >= '2024-01-01') s WHERE s.v > 1`, map[string]pushdown{"t": from(ms20240101)}},
		{"cte", "", `WITH c AS (SELECT * FROM t WHERE region = 'a') SELECT * FROM c, c AS d`, map[string]pushdown{"t": tags(pushdown{}, "region", "a")}},
		{"cte unfiltered outer", "", `WITH c AS (SELECT * FROM t) SELECT * FROM c WHERE time > '2024-01-01'`, none},
		{"twice", "", `SELECT * FROM t WHERE time > '2024-01-01' UNION ALL SELECT * FROM t WHERE time > '2024-01-01'`, none},
		{"twice in subquery", "", `SELECT * FROM t WHERE time > '2024-01-01' AND v > (SELECT avg(v) FROM t)`, none},
		{"two tables", "", `SELECT * FROM t WHERE region = 'a' UNION ALL BY NAME SELECT * FROM db.w WHERE site = 's'`, map[string]pushdown{"t": tags(pushdown{}, "region", "a"), "w": tags(pushdown{}, "site", "s")}},
		{"inner join qualified", "", `SELECT * FROM t JOIN dim d ON t.region = d.region WHERE t.time >= '2024-01-01' AND d.name = 'x'`, map[string]pushdown{"t": from(ms20240101)}},
		{"join unqualified", "", `SELECT * FROM t JOIN dim d ON t.region = d.region WHERE time >= '2024-01-01'`, none},
		{"left join preserved", "", `SELECT * FROM t LEFT JOIN dim d ON t.region = d.region WHERE t.time >= '2024-01-01'`, map[string]pushdown{"t": from(ms20240101)}},
		{"left join nullable", "", `SELECT * FROM dim d LEFT JOIN t ON t.region = d.region WHERE t.time >= '2024-01-01'`, none},
		{"full join", "", `SELECT * FROM dim d FULL JOIN t ON t.region = d.region WHERE t.time >= '2024-01-01'`, none},
		{"positional", "", `SELECT * FROM t POSITIONAL JOIN dim WHERE t.time >= '2024-01-01'`, none},
		{"asof", "", `SELECT * FROM dim d ASOF JOIN t ON d.region = t.region AND d.name >= t.dev WHERE t.time >= '2024-01-01'`, none},
		{"user view", "", `SELECT * FROM t WHERE time >= '2024-01-01' UNION ALL SELECT * FROM uv`, none},
		{"table macro", "", `SELECT * FROM t WHERE time >= '2024-01-01' UNION ALL SELECT * FROM tm()`, none},
		{"scalar macro", "", `SELECT sm(), * FROM t WHERE time >= '2024-01-01'`, none},
		{"query function", "", `SELECT * FROM t WHERE time >= '2024-01-01' UNION ALL SELECT * FROM query_table('t')`, none},
		{"replacement scan", "", `SELECT * FROM t WHERE time >= '2024-01-01' UNION ALL SELECT * FROM 'x.tsfile'`, none},
		{"ns table", "", `SELECT * FROM db.w WHERE time >= '2024-01-01 00:00:00.000000001' AND time < TIMESTAMP '2024-01-02'`, map[string]pushdown{"w": rng(ns20240101+1, ns20240101+day*1000000-1)}},
		{"us table case", "", `SELECT * FROM u WHERE "time" <= '2024-01-01' AND dev = 'd'`, map[string]pushdown{"u": tags(upto(us20240101), "Dev", "d")}},
		{"time in", "", `SELECT * FROM t WHERE time IN ('2024-01-02', '2024-01-01')`, map[string]pushdown{"t": rng(ms20240101, ms20240101+day)}},
		{"limit", "", `SELECT * FROM t LIMIT 10`, map[string]pushdown{"t": limit(pushdown{}, 10)}},
		{"limit offset where", "", `SELECT time, region FROM t WHERE time >= '2024-01-01' AND region = 'a' LIMIT 10 OFFSET 5`, map[string]pushdown{"t": limit(tags(from(ms20240101), "region", "a"), 15)}},
		{"limit 0", "", `SELECT * FROM t LIMIT 0`, map[string]pushdown{"t": {Empty: true}}},
		{"limit other where", "", `SELECT * FROM t WHERE v > 3 LIMIT 10`, none},
		{"limit in list", "", `SELECT * FROM t WHERE time IN ('2024-01-02', '2024-01-01') LIMIT 10`, map[string]pushdown{"t": rng(ms20240101, ms20240101+day)}},
		{"limit order", "", `SELECT * FROM t ORDER BY time LIMIT 10`, none},
		{"limit aggregate", "", `SELECT count(*) FROM t LIMIT 10`, none},
		{"limit distinct", "", `SELECT DISTINCT region FROM t LIMIT 10`, none},
		{"limit group", "", `SELECT region FROM t GROUP BY region LIMIT 10`, none},
		{"limit window", "", `SELECT row_number() OVER () FROM t LIMIT 10`, none},
		{"limit unnest", "", `SELECT unnest([1, 2]) FROM t LIMIT 10`, none},
		{"limit subquery", "", `SELECT * FROM (SELECT * FROM t LIMIT 10)`, none},
		{"limit percent", "", `SELECT * FROM t LIMIT 10%`, none},
		{"limit ns", "", `SELECT * FROM db.w WHERE time > TIMESTAMP '2024-01-01' LIMIT 3`, map[string]pushdown{"w": limit(from(ns20240101+1), 3)}},
		{"not a select", "", `DELETE FROM raw_t`, none},
		{"two statements", "", `SELECT * FROM t WHERE region = 'a'; SELECT 1`, none},
		{"syntax error", "", `SELEC * FROM t`, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := tc.tz
			if z == "" {
				z = "UTC"
			}
			_, err := conn.ExecContext(ctx, "SET TimeZone = '"+z+"'")
			require.NoError(t, err)
			got, err := planPushdown(ctx, conn, tc.q, pdTables)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// pdRow is one row of the randomized test's data.
type pdRow struct {
	time        int64 // ms, or ns for the ns table
	region, dev string
	null        bool // region is NULL
	v           int64
}

// allowed is the naive model of what a scan with pd returns: the rows whose
// time is in [Start, End] and whose TAGs are in the sets.
func allowed(pd pushdown, r pdRow) bool {
	if pd.Empty || (pd.HasStart && r.time < pd.Start) || (pd.HasEnd && r.time > pd.End) {
		return false
	}
	for tag, set := range pd.Tags {
		val := r.dev
		if tag == "region" || tag == "site" {
			if r.null {
				return false
			}
			val = r.region
		}
		if !slices.Contains(set, val) {
			return false
		}
	}
	return true
}

// FuzzPushdown checks "pushdown only skips what cannot match" on random
// WHERE clauses over random rows: DuckDB's rows over the plain table must
// equal the rows DuckDB selects from only the rows the pushdown lets
// through (and with a Limit, the first Limit of those must still give as
// many rows as the statement returns over all of them).
func FuzzPushdown(f *testing.F) {
	for seed := range 10 {
		f.Add(uint64(seed))
	}
	conn := pdOpen(f)
	ctx := context.Background()
	var pushed, total int
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		ns := r.IntN(3) == 0
		table, raw, tag := "t", "raw_t", "region"
		step := int64(1)
		if ns {
			table, raw, tag, step = "db.w", "raw_w", "site", 1000000
		}
		// Rows around the 2024-03-31 DST change in Europe, a few ms apart,
		// sometimes at a sub-ms ns offset.
		base := int64(1711846799990) * step // 2024-03-31 00:59:59.990 UTC
		rows := make([]pdRow, 40+r.IntN(40))
		_, err := conn.ExecContext(ctx, "DELETE FROM "+raw)
		require.NoError(t, err)
		var vals []string
		for i := range rows {
			rw := pdRow{time: base + int64(r.IntN(40)-20)*step, region: fmt.Sprint("r", r.IntN(3)), dev: fmt.Sprint("d", r.IntN(3)), null: r.IntN(8) == 0, v: int64(r.IntN(10))}
			if ns && r.IntN(3) == 0 {
				rw.time += []int64{-500, -1, 1, 500, 999, 1000}[r.IntN(6)]
			}
			rows[i] = rw
			reg := "'" + rw.region + "'"
			if rw.null {
				reg = "NULL"
			}
			if ns {
				vals = append(vals, fmt.Sprintf("(%d, make_timestamp_ns(%d::BIGINT), %s, %d)", i, rw.time, reg, rw.v))
			} else {
				vals = append(vals, fmt.Sprintf("(%d, make_timestamptz(%d::BIGINT), %s, '%s', %d)", i, rw.time*1000, reg, rw.dev, rw.v))
			}
		}
		_, err = conn.ExecContext(ctx, "INSERT INTO "+raw+" VALUES "+strings.Join(vals, ", "))
		require.NoError(t, err)
		zones := []string{"UTC", "UTC", "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"}
		_, err = conn.ExecContext(ctx, "SET TimeZone = '"+zones[r.IntN(len(zones))]+"'")
		require.NoError(t, err)

		g := pdGen{r: r, tag: tag, ns: ns, base: base, step: step}
		for range 60 {
			where := g.expr(3)
			q := "SELECT id FROM " + table + " WHERE " + where
			limit := ""
			if r.IntN(4) == 0 {
				limit = fmt.Sprintf(" LIMIT %d", r.IntN(6))
				if r.IntN(2) == 0 {
					limit += fmt.Sprintf(" OFFSET %d", r.IntN(4))
				}
			}
			want, err := pdIDs(ctx, conn, "SELECT id FROM ("+q+limit+")")
			if err != nil {
				continue // DuckDB refuses the statement (e.g. TIMESTAMPTZ vs TIMESTAMP_NS)
			}
			pds, err := planPushdown(ctx, conn, q+limit, pdTables)
			require.NoError(t, err)
			id := "t"
			if ns {
				id = "w"
			}
			pd := pds[id]
			total++
			if !pdIsZero(pd) {
				pushed++
			}
			var keep []string
			for i, rw := range rows {
				if allowed(pd, rw) {
					keep = append(keep, fmt.Sprint(i))
				}
			}
			if pd.Limit > 0 {
				// The scan may stop after Limit of its rows.
				if int64(len(keep)) > pd.Limit {
					keep = keep[:pd.Limit]
				}
			}
			if len(keep) == 0 {
				keep = []string{"-1"}
			}
			ids := "(" + strings.Join(keep, ", ") + ")"
			model, err := pdIDs(ctx, conn, "SELECT id FROM (SELECT * FROM "+table+" WHERE id IN "+ids+") AS "+strings.TrimPrefix(table, "db.")+" WHERE "+where+limit)
			require.NoError(t, err)
			if limit != "" {
				require.Equal(t, len(want), len(model), "%s%s: pushdown %+v", q, limit, pd)
				continue
			}
			require.Equal(t, want, model, "%s: pushdown %+v", q, pd)
		}
	})
	f.Logf("%d of %d statements had a pushdown", pushed, total)
}

func pdIDs(ctx context.Context, conn *sql.Conn, q string) ([]int, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []int{}
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	slices.Sort(out)
	return out, rows.Err()
}

// pdGen writes random WHERE clauses over the time column, a TAG and v.
type pdGen struct {
	r          *rand.Rand
	tag        string
	ns         bool
	base, step int64
}

func (g *pdGen) pick(l ...string) string { return l[g.r.IntN(len(l))] }

// instant is a random time constant near the data, in one of the forms a
// user writes: text in the session's zone, at +00, +02 or Europe/Berlin
// (whose offset changes inside the data), TIMESTAMP, epoch_ms, DATE, a bare
// integer (DuckDB refuses it) or NULL.
func (g *pdGen) instant() string {
	ms := g.base/g.step + int64(g.r.IntN(50)-25)
	// Sub-ms digits: half a ms, 1 µs / 1 ns past, or just before the next.
	sub := g.pick("", "5", "999", "001", "000001", "999999")
	wall := func(loc *time.Location) string {
		return time.UnixMilli(ms).In(loc).Format("2006-01-02 15:04:05.000") + sub
	}
	switch g.r.IntN(9) {
	case 0:
		return "'" + wall(time.UTC) + "'"
	case 1:
		return "'" + wall(time.UTC) + "+00'"
	case 2:
		return "'" + wall(pdBerlin) + " Europe/Berlin'"
	case 3:
		return "TIMESTAMP '" + wall(time.UTC) + "'"
	case 4:
		return "TIMESTAMPTZ '" + wall(time.FixedZone("", 7200)) + "+02'"
	case 5:
		return fmt.Sprintf("epoch_ms(%d)", ms)
	case 6:
		return "DATE '2024-03-31'"
	case 7:
		return fmt.Sprint(ms)
	default:
		return "NULL"
	}
}

var pdBerlin = func() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return l
}()

func (g *pdGen) atom() string {
	t := g.pick("time", `"TIME"`)
	switch g.r.IntN(11) {
	case 0, 1, 9, 10:
		return t + " " + g.pick("=", "<", "<=", ">", ">=", "<>") + " " + g.instant()
	case 2:
		return g.instant() + " " + g.pick("=", "<", "<=", ">", ">=") + " " + t
	case 3:
		return t + " BETWEEN " + g.instant() + " AND " + g.instant()
	case 4:
		return t + " IN (" + g.instant() + ", " + g.instant() + ")"
	case 5:
		return g.tag + " = " + g.pick("'r0'", "'r1'", "'R1'", "NULL", "'r2'", "1")
	case 6:
		return g.tag + " IN (" + g.pick("'r0'", "'r1'", "NULL") + ", " + g.pick("'r2'", "'r1'") + ")"
	case 7:
		if g.ns {
			return "x IS NULL"
		}
		return "v " + g.pick("<", ">", "=") + " " + fmt.Sprint(g.r.IntN(10))
	default:
		return g.tag + " IS NULL"
	}
}

func (g *pdGen) expr(depth int) string {
	if depth == 0 || g.r.IntN(2) == 0 {
		return g.atom()
	}
	switch g.r.IntN(6) {
	case 0:
		return "(" + g.expr(depth-1) + " OR " + g.expr(depth-1) + ")"
	case 1:
		return "NOT (" + g.expr(depth-1) + ")"
	default:
		return "(" + g.expr(depth-1) + " AND " + g.expr(depth-1) + ")"
	}
}

// TestPlanPushdownSession covers what the session changes: a user macro
// that shadows a built-in (DuckDB prefers it) and a default collation.
func TestPlanPushdownSession(t *testing.T) {
	conn := pdOpen(t)
	ctx := context.Background()
	q := `SELECT * FROM t WHERE time >= epoch_ms(1704067200000) AND region = 'a'`
	got, err := planPushdown(ctx, conn, q, pdTables)
	require.NoError(t, err)
	require.Equal(t, map[string]pushdown{"t": {Start: ms20240101, HasStart: true, Tags: map[string][]string{"region": {"a"}}}}, got)

	_, err = conn.ExecContext(ctx, `SET default_collation = 'nocase'`)
	require.NoError(t, err)
	got, err = planPushdown(ctx, conn, q, pdTables)
	require.NoError(t, err)
	require.Equal(t, map[string]pushdown{"t": {Start: ms20240101, HasStart: true}}, got, "region = 'a' also matches 'A' under nocase")
	_, err = conn.ExecContext(ctx, `RESET default_collation`)
	require.NoError(t, err)

	_, err = conn.ExecContext(ctx, `CREATE MACRO epoch_ms(x) AS now()`)
	require.NoError(t, err)
	got, err = planPushdown(ctx, conn, q, pdTables)
	require.NoError(t, err)
	require.Empty(t, got, "a macro named epoch_ms shadows the built-in")
}
