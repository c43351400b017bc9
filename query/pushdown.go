//go:build cgo && duckdb_arrow

package query

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"

	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// pushdown is what a statement's WHERE and LIMIT let one scan of a table
// skip (issue 38 point 3). The zero value skips nothing. DuckDB still
// applies every predicate of the statement to the rows a scan returns, so a
// pushdown may let through rows that do not match, but must never drop a
// row that could.
type pushdown struct {
	Start, End       int64 // inclusive, in the table's unit; valid when HasStart / HasEnd
	HasStart, HasEnd bool
	// Empty: the conjuncts cannot all hold (time > 5 AND time < 3, or
	// LIMIT 0); the scan may return no rows at all.
	Empty bool
	// Tags maps a TAG column to the values it may take (from = or IN);
	// an absent column may take any value. A row whose TAG is null never
	// matches an entry.
	Tags map[string][]string
	// Limit > 0: this many rows are enough for the statement. Only set when
	// the WHERE is exactly the Start/End/Tags above, so the scan must count
	// only rows that pass those (row by row, not page by page) toward it.
	Limit int64
}

// tableMeta is what planPushdown needs of one view (sqlcore builds it from
// Table): its scan id, where DuckDB finds it, and its time and TAG columns.
type tableMeta struct {
	ID, Schema, Name, Time string
	Unit                   arrow.TimeUnit
	Tags                   []string
}

// planPushdown parses query with DuckDB's own parser (json_serialize_sql)
// and returns, per table ID the statement reads, what its scan may skip.
// An ID that is absent from the map gets the zero pushdown.
//
// Soundness rules (a scan of an ID applies the map's value to every read of
// that ID in the statement):
//   - an ID gets a value only when exactly one table reference in the
//     statement can name it, that reference is the whole FROM of its SELECT
//     or an inner/cross join side or the preserved side of a LEFT/RIGHT join,
//     and has no sample, column aliases or AT clause;
//   - only top-level AND conjuncts of that SELECT's WHERE are used, and only
//     `time OP const` (=, <, <=, >, >=, BETWEEN, IN) and `tag = const` /
//     `tag IN (consts)`, the constants evaluated by DuckDB on conn (so the
//     session's TimeZone applies as it will to the statement);
//   - any user view, macro, table function that reads by name (query,
//     query_table) or non-builtin table function in the statement, or a
//     table reference that is neither a table, a CTE nor one of ours (a
//     replacement scan could read anything), disables all pushdown;
//   - parameters, volatile or per-query functions (random(), now()), NULLs,
//     casts or functions on the column side, OR and NOT are never pushed.
//
// A statement DuckDB cannot parse, or several statements, give an empty map
// and no error: DuckDB reports the problem when the statement runs.
// Errors are those of conn (a cancelled ctx, a closed connection).
func planPushdown(ctx context.Context, conn *sql.Conn, query string, tables []tableMeta) (map[string]pushdown, error) {
	out := map[string]pushdown{}
	if len(tables) == 0 {
		return out, nil
	}
	stmts, err := serializeSQL(ctx, conn, query)
	if err != nil || stmts == nil || len(stmts.Statements) != 1 {
		return out, err
	}
	root := jsObj(stmts.Statements[0], "node")
	if root == nil {
		return out, nil
	}
	p := &pdPlanner{ctx: ctx, conn: conn, tables: tables, ctes: map[string]bool{}}
	p.collect(root)
	p.attribute(root)
	// The catalog reads below cost milliseconds (duckdb_functions() tens of
	// them): skip them when no table could get anything.
	if !p.anyWork() {
		return out, nil
	}
	ok, err := p.catalogAllows()
	if err != nil || !ok {
		return out, err
	}
	for i, t := range tables {
		refs := p.candidates[i]
		if len(refs) != 1 {
			continue // not read here, or read more than once: no pushdown
		}
		c, ok := p.contexts[jsID(refs[0])]
		if !ok {
			continue // under something the pdPlanner does not understand
		}
		pd, err := p.plan(t, refs[0], c, root)
		if err != nil {
			return map[string]pushdown{}, err
		}
		if !pdIsZero(pd) {
			out[t.ID] = pd
		}
	}
	return out, nil
}

// serializedSQL is json_serialize_sql's answer.
type serializedSQL struct {
	Error        bool             `json:"error"`
	ErrorType    string           `json:"error_type"`
	ErrorMessage string           `json:"error_message"`
	Statements   []map[string]any `json:"statements"`
}

// serializeSQL runs json_serialize_sql on query. A nil result with no error
// means DuckDB answered something other than its JSON (never expected).
func serializeSQL(ctx context.Context, conn *sql.Conn, query string) (*serializedSQL, error) {
	var js string
	if err := conn.QueryRowContext(ctx, `SELECT json_serialize_sql(?::VARCHAR)::VARCHAR`, query).Scan(&js); err != nil {
		return nil, fmt.Errorf("query: parsing the statement for pushdown: %w", err)
	}
	var s serializedSQL
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber() // query_location is 2^64-1 when unknown
	if err := dec.Decode(&s); err != nil {
		return nil, nil
	}
	return &s, nil
}

type jsNode = map[string]any

func jsStr(n jsNode, k string) string {
	s, _ := n[k].(string)
	return s
}

func jsObj(n jsNode, k string) jsNode {
	m, _ := n[k].(map[string]any)
	return m
}

func jsList(n jsNode, k string) []any {
	l, _ := n[k].([]any)
	return l
}

// jsID identifies one JSON object of the parsed tree (the decoder makes a
// distinct map per object).
func jsID(n jsNode) uintptr { return reflect.ValueOf(n).Pointer() }

// identEqual compares identifiers as DuckDB's binder does: case-insensitive in
// ASCII only, whether or not they were quoted.
func identEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func pdLower(s string) string { return strings.ToLower(s) }

// pdRefContext is where a base-table reference sits: the SELECT whose FROM
// holds it, and whether it is alone there (unqualified columns are then
// its own) or one side of joins that keep all its rows' matches.
type pdRefContext struct {
	sel    jsNode
	inJoin bool
}

// pdPlanner holds one planPushdown call: what the statement references and
// calls, and what the catalog says of it.
type pdPlanner struct {
	ctx    context.Context
	conn   *sql.Conn
	tables []tableMeta

	baseRefs   []jsNode        // every BASE_TABLE in the statement
	funcs      map[string]bool // every function name called (scalar and table), pdLower case
	ctes       map[string]bool // every CTE name defined anywhere, pdLower case
	candidates [][]jsNode      // per table: the references that may name it
	contexts   map[uintptr]pdRefContext
	stable     map[string]bool // called functions whose every overload is built in, scalar and CONSISTENT
}

// collect walks the whole tree generically: every base-table reference,
// function call and CTE name counts, wherever it sits (subqueries in
// expressions, CTEs, set operations, PIVOT sources ...).
func (p *pdPlanner) collect(v any) {
	if p.funcs == nil {
		p.funcs = map[string]bool{}
	}
	switch n := v.(type) {
	case map[string]any:
		switch {
		case n["type"] == "BASE_TABLE":
			p.baseRefs = append(p.baseRefs, n)
		case n["class"] == "FUNCTION":
			p.funcs[pdLower(jsStr(n, "function_name"))] = true
		}
		if cm := jsObj(n, "cte_map"); cm != nil {
			for _, e := range jsList(cm, "map") {
				if em, ok := e.(map[string]any); ok {
					p.ctes[pdLower(jsStr(em, "key"))] = true
				}
			}
		}
		for _, c := range n {
			p.collect(c)
		}
	case []any:
		for _, c := range n {
			p.collect(c)
		}
	}
}

// anyWork fills the candidate references of each table and tells whether
// some table has one only, under a SELECT with a WHERE or modifiers.
func (p *pdPlanner) anyWork() bool {
	p.candidates = make([][]jsNode, len(p.tables))
	for _, r := range p.baseRefs {
		for i, t := range p.tables {
			if pdMayName(r, t) {
				p.candidates[i] = append(p.candidates[i], r)
			}
		}
	}
	for _, refs := range p.candidates {
		if len(refs) != 1 {
			continue
		}
		if c, ok := p.contexts[jsID(refs[0])]; ok && (c.sel["where_clause"] != nil || len(jsList(c.sel, "modifiers")) > 0) {
			return true
		}
	}
	return false
}

// catalogAllows checks the names the statement uses against DuckDB's
// catalog: a user view or macro could read one of our tables without the
// reference showing in the statement, and so could query()/query_table()
// or a table function that is not DuckDB's own (tsfile_scan itself).
func (p *pdPlanner) catalogAllows() (bool, error) {
	var unknown []string
	for _, r := range p.baseRefs {
		name := jsStr(r, "table_name")
		ours := false
		for _, t := range p.tables {
			ours = ours || pdMayName(r, t)
		}
		if !ours && !(jsStr(r, "schema_name") == "" && jsStr(r, "catalog_name") == "" && p.ctes[pdLower(name)]) {
			unknown = append(unknown, name)
		}
	}
	// Views: every reference, ours or not, must not name a view that is not
	// one of ours (a user's view over one of our views would read it whole).
	views, err := p.names(`SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal`)
	if err != nil {
		return false, err
	}
	for _, r := range p.baseRefs {
		for _, v := range views {
			if identEqual(v[1], jsStr(r, "table_name")) && !p.isOurs(v[0], v[1]) {
				return false, nil
			}
		}
	}
	// Other names must be tables (a replacement scan such as FROM 'x.tsfile'
	// could read one of our ids).
	if len(unknown) > 0 {
		tabs, err := p.names(`SELECT schema_name, table_name FROM duckdb_tables()`)
		if err != nil {
			return false, err
		}
		for _, u := range unknown {
			found := false
			for _, t := range tabs {
				found = found || identEqual(t[1], u)
			}
			if !found {
				return false, nil
			}
		}
	}
	if len(p.funcs) > 0 {
		// duckdb_functions() costs tens of ms (it lists every built-in
		// overload), so it is read once, and only for statements that call
		// something.
		rows, err := p.conn.QueryContext(p.ctx, `SELECT lower(function_name), bool_or(NOT internal AND function_type <> 'scalar' AND function_type <> 'aggregate'), bool_and(internal AND function_type = 'scalar' AND stability = 'CONSISTENT') FROM duckdb_functions() GROUP BY 1`)
		if err != nil {
			return false, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
		}
		defer rows.Close()
		p.stable = map[string]bool{}
		for rows.Next() {
			var name string
			var user, consistent bool
			if err := rows.Scan(&name, &user, &consistent); err != nil {
				return false, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
			}
			if !p.funcs[name] {
				continue
			}
			if user || name == "query" || name == "query_table" {
				return false, nil // a user macro, table macro or table function (ours included), or a read by name
			}
			p.stable[name] = consistent
		}
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
		}
	}
	return true, nil
}

// names runs a catalog query answering two strings per row.
func (p *pdPlanner) names(q string) ([][2]string, error) {
	rows, err := p.conn.QueryContext(p.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var a, b sql.NullString
		if err := rows.Scan(&a, &b); err != nil {
			return nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
		}
		out = append(out, [2]string{a.String, b.String})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
	}
	return out, nil
}

func (p *pdPlanner) isOurs(schema, name string) bool {
	for _, t := range p.tables {
		if identEqual(t.Schema, schema) && identEqual(t.Name, name) {
			return true
		}
	}
	return false
}

// pdMayName tells whether the reference r could resolve to table t. It errs
// towards yes: an extra candidate only costs pushdown, a missing one would
// let a scan skip rows another reference needs.
func pdMayName(r jsNode, t tableMeta) bool {
	if !identEqual(jsStr(r, "table_name"), t.Name) {
		return false
	}
	s, c := jsStr(r, "schema_name"), jsStr(r, "catalog_name")
	switch {
	case s == "":
		return true
	case c == "":
		// schema.table, or catalog.table in the catalog's default schema
		return identEqual(s, t.Schema) || identEqual(t.Schema, "main")
	default:
		return identEqual(s, t.Schema)
	}
}

// attribute finds every SELECT node and records, for each base-table
// reference of its FROM, whether that SELECT's WHERE filters the
// reference's rows (see refContext).
func (p *pdPlanner) attribute(v any) {
	if p.contexts == nil {
		p.contexts = map[uintptr]pdRefContext{}
	}
	switch n := v.(type) {
	case map[string]any:
		if n["type"] == "SELECT_NODE" && n["sample"] == nil {
			from := jsObj(n, "from_table")
			switch {
			case from == nil:
			case from["type"] == "BASE_TABLE":
				if pdPlainRef(from) {
					p.contexts[jsID(from)] = pdRefContext{sel: n}
				}
			case from["type"] == "JOIN":
				p.joinSides(n, from)
			}
		}
		for _, c := range n {
			p.attribute(c)
		}
	case []any:
		for _, c := range n {
			p.attribute(c)
		}
	}
}

// pdPlainRef: a reference with no sample (taken before WHERE, so pushdown
// would change which rows it samples), no column aliases (x(a, b) renames
// columns by position) and no AT clause.
func pdPlainRef(r jsNode) bool {
	return r["sample"] == nil && len(jsList(r, "column_name_alias")) == 0 && r["at_clause"] == nil
}

// joinSides records the references of a join tree whose every row that
// does not pass sel's WHERE can be dropped before the join: sides of inner
// and cross joins and the preserved side of LEFT/RIGHT joins. Positional,
// ASOF, lateral, natural, semi, anti and full joins are left out.
func (p *pdPlanner) joinSides(sel, j jsNode) {
	var left, right bool
	switch ref := jsStr(j, "ref_type"); {
	case ref != "REGULAR" && ref != "CROSS":
	case jsStr(j, "join_type") == "INNER":
		left, right = true, true
	case jsStr(j, "join_type") == "LEFT":
		left = true
	case jsStr(j, "join_type") == "RIGHT":
		right = true
	}
	for _, side := range []struct {
		n  jsNode
		ok bool
	}{{jsObj(j, "left"), left}, {jsObj(j, "right"), right}} {
		if !side.ok || side.n == nil {
			continue
		}
		switch side.n["type"] {
		case "BASE_TABLE":
			if pdPlainRef(side.n) {
				p.contexts[jsID(side.n)] = pdRefContext{sel: sel, inJoin: true}
			}
		case "JOIN":
			p.joinSides(sel, side.n)
		}
	}
}

// pdConjuncts flattens the top-level ANDs of a WHERE clause.
func pdConjuncts(e jsNode) []jsNode {
	if e == nil {
		return nil
	}
	if e["class"] == "CONJUNCTION" && e["type"] == "CONJUNCTION_AND" {
		var out []jsNode
		for _, c := range jsList(e, "children") {
			if cn, ok := c.(map[string]any); ok {
				out = append(out, pdConjuncts(cn)...)
			} else {
				return []jsNode{{"class": "?"}}
			}
		}
		return out
	}
	return []jsNode{e}
}

// pdColKind is what a column reference in a conjunct names.
type pdColKind int

const (
	pdOther pdColKind = iota
	pdTime
	pdTag
)

// pdColumn resolves a COLUMN_REF expression against reference r of table t:
// an unqualified name only when r is alone in its FROM, else a name
// qualified by r's alias (or its table name when it has none).
func pdColumn(e jsNode, r jsNode, t tableMeta, inJoin bool) (pdColKind, string) {
	if e == nil || e["class"] != "COLUMN_REF" {
		return pdOther, ""
	}
	parts := jsList(e, "column_names")
	var name string
	switch len(parts) {
	case 1:
		if inJoin {
			return pdOther, ""
		}
		name, _ = parts[0].(string)
	case 2:
		q, _ := parts[0].(string)
		want := jsStr(r, "alias")
		if want == "" {
			want = jsStr(r, "table_name")
		}
		if !identEqual(q, want) {
			return pdOther, ""
		}
		name, _ = parts[1].(string)
	default:
		return pdOther, ""
	}
	if identEqual(name, t.Time) {
		return pdTime, t.Time
	}
	for _, g := range t.Tags {
		if identEqual(name, g) {
			return pdTag, g
		}
	}
	return pdOther, ""
}

// pdBound is one side of a time conjunct: the column's DuckDB value op c.
type pdBound struct {
	op     string // ">=", "<=", "=" (strict ones are turned into these on the pdColumn's integer values)
	strict bool
	c      int // index into the constants to evaluate
}

// pdCond is one conjunct the planner understood.
type pdCond struct {
	time   []pdBound // all must hold (BETWEEN gives two); for IN: any of them (op "=")
	in     bool      // time IN (...): the hull of the values
	tag    string
	values []int // tag = / IN: constants
}

// plan computes the pushdown of table t read through reference r in
// context c.
func (p *pdPlanner) plan(t tableMeta, r jsNode, c pdRefContext, root jsNode) (pushdown, error) {
	colType, tagTypes, err := p.columnTypes(t)
	if err != nil || colType == "" {
		return pushdown{}, err
	}
	var consts []jsNode
	addConst := func(e jsNode) int {
		consts = append(consts, e)
		return len(consts) - 1
	}
	var conds []pdCond
	all := true // every conjunct was understood exactly
	for _, e := range pdConjuncts(jsObj(c.sel, "where_clause")) {
		cd, ok := p.conjunct(e, r, t, c.inJoin, addConst, tagTypes)
		if !ok {
			all = false
			continue
		}
		conds = append(conds, cd)
	}
	// LIMIT n [OFFSET m] of the statement itself, when it is this SELECT.
	limitC, offsetC := -1, -1
	if all && !c.inJoin && jsID(root) == jsID(c.sel) {
		limitC, offsetC = pdLimit(c.sel, addConst)
	}
	if len(conds) == 0 && limitC < 0 {
		return pushdown{}, nil
	}
	vals, err := p.evaluate(consts, conds, colType, limitC, offsetC)
	if err != nil {
		return pushdown{}, err
	}
	var pd pushdown
	exact := all
	for _, cd := range conds {
		if cd.tag != "" {
			var set []string
			for _, i := range cd.values {
				if !vals[i].ok {
					set = nil
					break
				}
				set = append(set, vals[i].s)
			}
			if set == nil {
				exact = false
				continue
			}
			pd.addTags(cd.tag, set)
			continue
		}
		lo, hi, hasLo, hasHi, ok, ex := pdTimeRange(cd, vals, colType, t.Unit)
		if !ok {
			exact = false
			continue
		}
		exact = exact && ex
		pd.addRange(lo, hi, hasLo, hasHi)
	}
	if limitC >= 0 && exact {
		n, off := vals[limitC], vals[offsetC]
		if n.ok && off.ok && n.i >= 0 && off.i >= 0 && n.i <= math.MaxInt64-off.i {
			if n.i == 0 {
				pd.Empty = true
			} else {
				pd.Limit = n.i + off.i
			}
		}
	}
	if pd.Empty {
		return pushdown{Empty: true}, nil
	}
	return pd, nil
}

func (pd *pushdown) addRange(lo, hi int64, hasLo, hasHi bool) {
	if hasLo && (!pd.HasStart || lo > pd.Start) {
		pd.Start, pd.HasStart = lo, true
	}
	if hasHi && (!pd.HasEnd || hi < pd.End) {
		pd.End, pd.HasEnd = hi, true
	}
	if pd.HasStart && pd.HasEnd && pd.Start > pd.End {
		pd.Empty = true
	}
}

func (pd *pushdown) addTags(tag string, set []string) {
	if pd.Tags == nil {
		pd.Tags = map[string][]string{}
	}
	old, had := pd.Tags[tag]
	var keep []string
	seen := map[string]bool{}
	for _, v := range set {
		if seen[v] {
			continue
		}
		seen[v] = true
		if had && !pdContains(old, v) {
			continue
		}
		keep = append(keep, v)
	}
	if len(keep) == 0 {
		pd.Empty = true
		keep = []string{}
	}
	pd.Tags[tag] = keep
}

func pdContains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func pdIsZero(pd pushdown) bool {
	return !pd.HasStart && !pd.HasEnd && !pd.Empty && len(pd.Tags) == 0 && pd.Limit == 0
}

// pdFlip mirrors a comparison for `const OP column`.
var pdFlip = map[string]string{
	"COMPARE_EQUAL":                "COMPARE_EQUAL",
	"COMPARE_LESSTHAN":             "COMPARE_GREATERTHAN",
	"COMPARE_GREATERTHAN":          "COMPARE_LESSTHAN",
	"COMPARE_LESSTHANOREQUALTO":    "COMPARE_GREATERTHANOREQUALTO",
	"COMPARE_GREATERTHANOREQUALTO": "COMPARE_LESSTHANOREQUALTO",
}

// conjunct understands one conjunct of a WHERE, or answers false.
func (p *pdPlanner) conjunct(e jsNode, r jsNode, t tableMeta, inJoin bool, addConst func(jsNode) int, tagTypes map[string]string) (pdCond, bool) {
	constant := func(x jsNode) bool { return p.isConstant(x) }
	switch {
	case e["class"] == "COMPARISON":
		op := jsStr(e, "type")
		if _, ok := pdFlip[op]; !ok {
			return pdCond{}, false
		}
		l, rt := jsObj(e, "left"), jsObj(e, "right")
		k, name := pdColumn(l, r, t, inJoin)
		other := rt
		if k == pdOther {
			k, name = pdColumn(rt, r, t, inJoin)
			other, op = l, pdFlip[op]
		}
		if k == pdOther || !constant(other) {
			return pdCond{}, false
		}
		if k == pdTag {
			if op != "COMPARE_EQUAL" || tagTypes[pdLower(name)] != "VARCHAR" {
				return pdCond{}, false
			}
			return pdCond{tag: name, values: []int{addConst(other)}}, true
		}
		b := pdBound{c: addConst(other)}
		switch op {
		case "COMPARE_EQUAL":
			b.op = "="
		case "COMPARE_LESSTHAN":
			b.op, b.strict = "<=", true
		case "COMPARE_LESSTHANOREQUALTO":
			b.op = "<="
		case "COMPARE_GREATERTHAN":
			b.op, b.strict = ">=", true
		case "COMPARE_GREATERTHANOREQUALTO":
			b.op = ">="
		}
		return pdCond{time: []pdBound{b}}, true
	case e["class"] == "BETWEEN" && e["type"] == "COMPARE_BETWEEN":
		k, _ := pdColumn(jsObj(e, "input"), r, t, inJoin)
		lo, hi := jsObj(e, "lower"), jsObj(e, "upper")
		if k != pdTime || !constant(lo) || !constant(hi) {
			return pdCond{}, false
		}
		return pdCond{time: []pdBound{{op: ">=", c: addConst(lo)}, {op: "<=", c: addConst(hi)}}}, true
	case e["class"] == "OPERATOR" && e["type"] == "COMPARE_IN":
		ch := jsList(e, "children")
		if len(ch) < 2 {
			return pdCond{}, false
		}
		first, _ := ch[0].(map[string]any)
		k, name := pdColumn(first, r, t, inJoin)
		if k == pdOther || (k == pdTag && tagTypes[pdLower(name)] != "VARCHAR") {
			return pdCond{}, false
		}
		var items []jsNode
		for _, x := range ch[1:] {
			xn, _ := x.(map[string]any)
			if !constant(xn) {
				return pdCond{}, false
			}
			items = append(items, xn)
		}
		if k == pdTag {
			cd := pdCond{tag: name}
			for _, x := range items {
				cd.values = append(cd.values, addConst(x))
			}
			return cd, true
		}
		cd := pdCond{in: true}
		for _, x := range items {
			cd.time = append(cd.time, pdBound{op: "=", c: addConst(x)})
		}
		return cd, true
	}
	return pdCond{}, false
}

// isConstant accepts an expression DuckDB can evaluate once, before the
// statement, to the value the statement will see: literals, casts and
// calls of built-in functions that always give the same answer (no
// random(), no now(): the statement runs later), and nothing that reads a
// column, a parameter or a subquery.
func (p *pdPlanner) isConstant(e jsNode) bool {
	if e == nil {
		return false
	}
	switch e["class"] {
	case "CONSTANT":
		return true
	case "CAST":
		return p.isConstant(jsObj(e, "child"))
	case "FUNCTION":
		if !p.consistent(pdLower(jsStr(e, "function_name"))) || e["filter"] != nil || e["distinct"] == true || jsStr(e, "schema") != "" || jsStr(e, "catalog") != "" {
			return false
		}
		if ob := jsObj(e, "order_bys"); ob != nil && len(jsList(ob, "orders")) > 0 {
			return false
		}
		for _, a := range jsList(e, "arguments") {
			an, _ := a.(map[string]any)
			if an == nil || jsStr(an, "name") != "" || !p.isConstant(jsObj(an, "expression")) {
				return false
			}
		}
		return true
	}
	return false
}

// consistent tells whether every overload DuckDB has of the scalar
// function name is built in and CONSISTENT (same answer for the same
// arguments, any time).
func (p *pdPlanner) consistent(name string) bool {
	return p.stable[name] // filled by catalogAllows from duckdb_functions()
}

// columnTypes asks DuckDB the types of t's time and TAG columns as its view
// declares them; "" when the view is not there or the time column has a
// type pushdown does not handle.
func (p *pdPlanner) columnTypes(t tableMeta) (string, map[string]string, error) {
	rows, err := p.conn.QueryContext(p.ctx, `SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?`, t.Schema, t.Name)
	if err != nil {
		return "", nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
	}
	defer rows.Close()
	var timeType string
	tags := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
		}
		if identEqual(name, t.Time) {
			timeType = typ
		}
		for _, g := range t.Tags {
			if identEqual(name, g) {
				tags[pdLower(g)] = typ
			}
		}
	}
	if err := rows.Err(); err != nil {
		return "", nil, fmt.Errorf("query: reading the catalog for pushdown: %w", err)
	}
	if _, ok := pdTimeScale[timeType]; !ok {
		timeType = ""
	}
	// A default collation (SET default_collation = 'nocase') makes
	// region = 'a' match 'A': TAG values are then not pushed.
	var coll sql.NullString
	if err := p.conn.QueryRowContext(p.ctx, `SELECT current_setting('default_collation')::VARCHAR`).Scan(&coll); err != nil || coll.String != "" {
		if p.ctx.Err() != nil {
			return "", nil, p.ctx.Err()
		}
		tags = map[string]string{}
	}
	return timeType, tags, nil
}

// pdTimeScale is, per DuckDB type of the time column, how many of its
// integer steps make a second, and the function that gives that integer.
// BIGINT holds the table's own unit (0 = the table's).
var pdTimeScale = map[string]struct {
	perSecond int64
	epoch     string
}{
	"TIMESTAMP WITH TIME ZONE": {1e6, "epoch_us"},
	"TIMESTAMP":                {1e6, "epoch_us"},
	"TIMESTAMP_NS":             {1e9, "epoch_ns"},
	"TIMESTAMP_MS":             {1e3, "epoch_ms"},
	"BIGINT":                   {0, ""},
}

// pdConstTypes are the types of a constant that DuckDB casts to the time
// column's type to compare (checked: a TIMESTAMP compared with a TIMESTAMP
// WITH TIME ZONE column is taken in the session's time zone, the column is
// not cast to local time). A VARCHAR counts only as a string literal: a
// VARCHAR expression makes DuckDB compare the column as text.
var pdConstTypes = map[string][]string{
	"TIMESTAMP WITH TIME ZONE": {"TIMESTAMP WITH TIME ZONE", "TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_S", "DATE"},
	"TIMESTAMP":                {"TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_S", "DATE"},
	"TIMESTAMP_NS":             {"TIMESTAMP_NS", "TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_S", "DATE"},
	"TIMESTAMP_MS":             {"TIMESTAMP_MS", "TIMESTAMP_S", "DATE"},
	"BIGINT":                   {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"},
}

// pdValue is one evaluated constant.
type pdValue struct {
	ok  bool
	i   int64  // time: the pdColumn type's integer (epoch_us ...); limits
	s   string // tags
	typ string
}

// evaluate has DuckDB compute every constant: its type, and as the time
// column's integer (TRY_CAST to the column's type, then its epoch in that
// type's steps) or as text for tags. consts are turned back into SQL by
// json_deserialize_sql, never by hand.
func (p *pdPlanner) evaluate(consts []jsNode, conds []pdCond, colType string, limitC, offsetC int) ([]pdValue, error) {
	vals := make([]pdValue, len(consts))
	if len(consts) == 0 {
		return vals, nil
	}
	kind := make([]byte, len(consts)) // 't' time, 'g' tag, 'l' limit
	for _, cd := range conds {
		for _, b := range cd.time {
			kind[b.c] = 't'
		}
		for _, i := range cd.values {
			kind[i] = 'g'
		}
	}
	if limitC >= 0 {
		kind[limitC], kind[offsetC] = 'l', 'l'
	}
	// One SELECT listing the constants, aliased c0, c1 ..., through DuckDB's
	// deserializer.
	var items []any
	for i, c := range consts {
		cp := map[string]any{}
		for k, v := range c {
			cp[k] = v
		}
		cp["alias"] = "c" + strconv.Itoa(i)
		items = append(items, cp)
	}
	sel := map[string]any{
		"error": false,
		"statements": []any{map[string]any{
			"node": map[string]any{
				"type": "SELECT_NODE", "modifiers": []any{}, "cte_map": map[string]any{"map": []any{}},
				"select_list": items, "from_table": map[string]any{"type": "EMPTY", "alias": "", "sample": nil, "query_location": json.Number("18446744073709551615"), "query_location_length": 0},
				"where_clause": nil, "group_expressions": []any{}, "group_sets": []any{},
				"aggregate_handling": "STANDARD_HANDLING", "having": nil, "sample": nil, "qualify": nil,
			},
			"named_param_map": []any{},
		}},
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(sel); err != nil {
		return nil, fmt.Errorf("query: pushdown constants: %w", err)
	}
	var text sql.NullString
	if err := p.conn.QueryRowContext(p.ctx, `SELECT json_deserialize_sql(?::JSON)`, buf.String()).Scan(&text); err != nil || !text.Valid {
		return vals, nil // DuckDB cannot write them back: push nothing
	}
	var cols []string
	for i := range consts {
		c := "c" + strconv.Itoa(i)
		cols = append(cols, "typeof("+c+")")
		switch kind[i] {
		case 't':
			if sc := pdTimeScale[colType]; sc.epoch != "" {
				cols = append(cols, fmt.Sprintf("%s(TRY_CAST(%s AS %s))::VARCHAR", sc.epoch, c, colType))
			} else {
				cols = append(cols, fmt.Sprintf("TRY_CAST(%s AS BIGINT)::VARCHAR", c))
			}
		case 'l':
			cols = append(cols, fmt.Sprintf("TRY_CAST(%s AS BIGINT)::VARCHAR", c))
		default:
			cols = append(cols, fmt.Sprintf("TRY_CAST(%s AS VARCHAR)", c))
		}
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM (" + text.String + ")"
	res := make([]sql.NullString, 2*len(consts))
	ptrs := make([]any, len(res))
	for i := range res {
		ptrs[i] = &res[i]
	}
	if err := p.conn.QueryRowContext(p.ctx, q, nil...).Scan(ptrs...); err != nil {
		if p.ctx.Err() != nil {
			return nil, p.ctx.Err()
		}
		return vals, nil // a constant DuckDB cannot evaluate: the statement will say so
	}
	for i, c := range consts {
		typ, v := res[2*i], res[2*i+1]
		if !typ.Valid || !v.Valid {
			continue
		}
		val := pdValue{typ: typ.String}
		switch kind[i] {
		case 't':
			// A string literal is cast to the column's type, as here.
			lit := colType != "BIGINT" && c["class"] == "CONSTANT" && jsStr(jsObj(c, "literal"), "kind") == "STRING"
			if !lit && !pdContains(pdConstTypes[colType], typ.String) {
				continue
			}
			fallthrough
		case 'l':
			n, err := strconv.ParseInt(v.String, 10, 64)
			if err != nil {
				continue
			}
			val.i, val.ok = n, true
		default:
			if typ.String != "VARCHAR" {
				continue // DuckDB would cast the TAG pdColumn to the constant's type
			}
			val.s, val.ok = v.String, true
		}
		vals[i] = val
	}
	return vals, nil
}

// pdLimit finds `LIMIT n [OFFSET m]` on a SELECT whose rows are its FROM's
// rows one for one (no ORDER BY, GROUP BY, aggregate, DISTINCT, window,
// HAVING, QUALIFY, sample, set-returning call): then n+m rows of the scan
// that pass the WHERE are enough. It answers the indexes of the constants,
// or -1.
func pdLimit(sel jsNode, addConst func(jsNode) int) (int, int) {
	mods := jsList(sel, "modifiers")
	if len(mods) != 1 || len(jsList(sel, "group_expressions")) > 0 || len(jsList(sel, "group_sets")) > 0 ||
		jsStr(sel, "aggregate_handling") != "STANDARD_HANDLING" || sel["having"] != nil || sel["qualify"] != nil || sel["sample"] != nil {
		return -1, -1
	}
	m, _ := mods[0].(map[string]any)
	if m == nil || jsStr(m, "type") != "LIMIT_MODIFIER" || jsStr(m, "limit_type") != "ROW_COUNT" {
		return -1, -1
	}
	for _, it := range jsList(sel, "select_list") {
		in, _ := it.(map[string]any)
		if !pdRowForRow(in) {
			return -1, -1
		}
	}
	lim := jsObj(m, "limit")
	if !pdIntLiteral(lim) {
		return -1, -1
	}
	off := jsObj(m, "offset")
	if off == nil {
		off = map[string]any{"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": json.Number("18446744073709551615"), "query_location_length": 0, "literal": map[string]any{"kind": "INTEGER", "text": "0"}}
	} else if !pdIntLiteral(off) {
		return -1, -1
	}
	return addConst(lim), addConst(off)
}

func pdIntLiteral(e jsNode) bool {
	return e != nil && e["class"] == "CONSTANT" && jsStr(jsObj(e, "literal"), "kind") == "INTEGER"
}

// pdRowForRow accepts select-list items that give one output row per input
// row: *, column references, literals and casts of them.
func pdRowForRow(e jsNode) bool {
	if e == nil {
		return false
	}
	switch e["class"] {
	case "STAR":
		return e["columns"] == false && e["expr"] == nil
	case "COLUMN_REF", "CONSTANT":
		return true
	case "CAST":
		return pdRowForRow(jsObj(e, "child"))
	}
	return false
}

// pdTimeRange turns one time condition into an inclusive range of the
// table's unit. The column holds DuckDB values d(t) of the row's time t:
// d(t) = t*k exactly when the column's type is as fine as the unit or
// finer (k = its steps per table step), else rounded somehow, and then
// the range is widened by one step of the column's type on both sides.
// exact tells whether the range is exactly the condition.
func pdTimeRange(cd pdCond, vals []pdValue, colType string, unit arrow.TimeUnit) (lo, hi int64, hasLo, hasHi, ok, exact bool) {
	perCol := pdTimeScale[colType].perSecond
	perUnit := pdUnitsPerSecond(unit)
	if perCol == 0 {
		perCol = perUnit // BIGINT: the table's own integers
	}
	if cd.in {
		// IN: the hull of the values' ranges.
		first := true
		for _, b := range cd.time {
			v := vals[b.c]
			if !v.ok {
				return 0, 0, false, false, false, false
			}
			l, h, okl, okh, ex := pdToUnit(v.i, v.i, perCol, perUnit)
			if !okl || !okh {
				return 0, 0, false, false, false, false
			}
			if first || l < lo {
				lo = l
			}
			if first || h > hi {
				hi = h
			}
			first = false
			_ = ex
		}
		return lo, hi, true, true, true, false
	}
	exact = true
	for _, b := range cd.time {
		v := vals[b.c]
		if !v.ok {
			return 0, 0, false, false, false, false
		}
		c := v.i
		switch b.op {
		case ">=":
			if b.strict {
				if c == math.MaxInt64 {
					return 0, 0, false, false, false, false
				}
				c++
			}
			l, _, okl, _, ex := pdToUnit(c, c, perCol, perUnit)
			if !okl {
				return 0, 0, false, false, false, false
			}
			exact = exact && ex
			if !hasLo || l > lo {
				lo, hasLo = l, true
			}
		case "<=":
			if b.strict {
				if c == math.MinInt64 {
					return 0, 0, false, false, false, false
				}
				c--
			}
			_, h, _, okh, ex := pdToUnit(c, c, perCol, perUnit)
			if !okh {
				return 0, 0, false, false, false, false
			}
			exact = exact && ex
			if !hasHi || h < hi {
				hi, hasHi = h, true
			}
		case "=":
			l, h, okl, okh, ex := pdToUnit(c, c, perCol, perUnit)
			if !okl || !okh {
				return 0, 0, false, false, false, false
			}
			exact = exact && ex
			if !hasLo || l > lo {
				lo, hasLo = l, true
			}
			if !hasHi || h < hi {
				hi, hasHi = h, true
			}
		}
	}
	return lo, hi, hasLo, hasHi, true, exact
}

// pdToUnit maps the column-type range [a, b] (a <= d(t) <= b) to the
// table's unit: the smallest t with d(t) >= a and the largest with
// d(t) <= b, or widened bounds when d rounds.
func pdToUnit(a, b, perCol, perUnit int64) (lo, hi int64, okLo, okHi, exact bool) {
	if perCol >= perUnit {
		k := perCol / perUnit
		if perCol%perUnit != 0 {
			return 0, 0, false, false, false
		}
		return pdCeilDiv(a, k), pdFloorDiv(b, k), true, true, true
	}
	if perUnit%perCol != 0 {
		return 0, 0, false, false, false
	}
	k := perUnit / perCol
	// d(t) is t/k rounded in some direction: d(t) >= a needs t > (a-1)*k,
	// d(t) <= b needs t < (b+1)*k.
	if a-1 < math.MinInt64/k || a-1 > math.MaxInt64/k || b+1 > math.MaxInt64/k || b+1 < math.MinInt64/k {
		return 0, 0, false, false, false
	}
	return (a-1)*k + 1, (b+1)*k - 1, true, true, false
}

func pdFloorDiv(a, k int64) int64 {
	q := a / k
	if a%k != 0 && a < 0 {
		q--
	}
	return q
}

func pdCeilDiv(a, k int64) int64 {
	q := a / k
	if a%k != 0 && a > 0 {
		q++
	}
	return q
}

func pdUnitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	default:
		return 1e9
	}
}
