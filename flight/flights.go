package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// flightPlan is a query resolved against the catalog: the schema, the
// signed grant without its parts, and the endpoints in stream order.
type flightPlan struct {
	schema    *arrow.Schema
	grant     grant
	endpoints []endpointPlan
	files     int
	skipped   map[string]string // files holding the table left out, and why
	dataDir   string            // the data directory read (dataset.go), if any
	rules     []string          // the IoTDB rules it applies
}

type endpointPlan struct {
	parts       []part
	rows, bytes int64
	// start and end, when set, narrow the grant's time range for this
	// endpoint (a data directory's flight cut by time; dataset.go).
	start, end *int64
}

// plan resolves q. Files named in the query must all hold the table with
// one schema; across the whole root, files whose schema differs from the
// first file's (in path order) are left out and reported in skipped.
func (s *Server) plan(q *Query) (*flightPlan, error) {
	if de, ok, err := s.cat.datasetFor(q); ok {
		if err != nil {
			return nil, err
		}
		defer de.release()
		return s.planDataset(q, de)
	}
	if q.Database != "" {
		// Only an IoTDB data directory has databases; a plain file
		// read with the database ignored would answer another question.
		return nil, fmt.Errorf("%w: database %q: only the tables of an IoTDB data directory are named with a database, and %v is none", errBadQuery, q.Database, q.Files)
	}
	opts, err := q.options(s.opts.TimeUnit.Unit())
	if err != nil {
		return nil, err
	}
	var entries []*entry
	explicit := len(q.Files) > 0
	if explicit {
		for _, f := range q.Files {
			e, err := s.cat.get(f)
			if err != nil {
				releaseAll(entries)
				return nil, err
			}
			entries = append(entries, e)
		}
	} else {
		entries = s.cat.snapshot()
	}
	defer releaseAll(entries)

	p := &flightPlan{skipped: map[string]string{}}
	p.grant = grant{Table: q.Table, Columns: q.Columns, Where: q.Where, Limit: q.Limit, Compression: q.Compression}
	if opts.Time != nil {
		p.grant.Start, p.grant.End = &opts.Time.Start, &opts.Time.End
	}
	if p.grant.Compression == "" {
		p.grant.Compression = s.opts.Compression
	}
	type filePlan struct {
		e  *entry
		pl *arrowconv.Plan
	}
	var plans []filePlan
	var firstFile string
	for _, e := range entries {
		ti, ok := e.table(q.Table)
		if !ok {
			if explicit {
				return nil, fmt.Errorf("%w: %s has no table %q", errNotFound, e.rel, q.Table)
			}
			continue
		}
		pl := ti.plan
		if q.filtered() {
			if err := checkColumns(ti.plan.Schema, q.Columns); err != nil {
				if explicit || p.schema == nil {
					return nil, fmt.Errorf("%w: %s: table %q has %v", errBadQuery, e.rel, q.Table, err)
				}
				p.skipped[e.rel] = err.Error()
				continue
			}
			if ti.tree {
				pl, err = arrowconv.PlanTree(e.f, q.Table, opts)
			} else {
				pl, err = arrowconv.PlanTable(e.f, q.Table, opts)
			}
			if err != nil {
				if explicit || p.schema == nil {
					return nil, fmt.Errorf("%w: %s: %v", errBadQuery, e.rel, err)
				}
				p.skipped[e.rel] = err.Error()
				continue
			}
		}
		schema, err := projection(pl.Schema, q.Columns)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.rel, err)
		}
		if p.schema == nil {
			p.schema, p.grant.Tree, firstFile = schema, ti.tree, e.rel
		} else if !schema.Equal(p.schema) || ti.tree != p.grant.Tree {
			msg := fmt.Sprintf("its schema of table %q differs from that of %s", q.Table, firstFile)
			if explicit {
				return nil, fmt.Errorf("%w: %s: %s", errBadQuery, e.rel, msg)
			}
			p.skipped[e.rel] = msg
			continue
		}
		plans = append(plans, filePlan{e, pl})
	}
	if p.schema == nil {
		return nil, fmt.Errorf("%w: no table %q under the root", errNotFound, q.Table)
	}
	p.files = len(plans)

	if q.Limit > 0 {
		// One stream over everything, so the limit counts every row once.
		var ep endpointPlan
		for _, fp := range plans {
			if len(fp.pl.Devices) == 0 {
				continue
			}
			d := fp.pl.Devices
			ep.parts = append(ep.parts, part{File: fp.e.rel, Version: fp.e.fingerprint(), Lo: d[0].Index, Hi: d[len(d)-1].Index + 1})
			r, b := fp.pl.Totals(0)
			ep.rows, ep.bytes = ep.rows+r, ep.bytes+b
		}
		if ep.rows > q.Limit {
			ep.bytes = int64(float64(ep.bytes) * float64(q.Limit) / float64(ep.rows))
			ep.rows = q.Limit
		}
		if len(ep.parts) > 0 {
			p.endpoints = append(p.endpoints, ep)
		}
		return p, nil
	}
	for _, fp := range plans {
		var cur *endpointPlan
		for _, d := range fp.pl.Devices {
			if cur != nil && cur.bytes+d.Bytes > s.opts.PartitionBytes {
				p.endpoints = append(p.endpoints, *cur)
				cur = nil
			}
			if cur == nil {
				cur = &endpointPlan{parts: []part{{File: fp.e.rel, Version: fp.e.fingerprint(), Lo: d.Index}}}
			}
			cur.parts[0].Hi = d.Index + 1
			cur.rows += d.Rows
			cur.bytes += d.Bytes
		}
		if cur != nil {
			p.endpoints = append(p.endpoints, *cur)
		}
	}
	return p, nil
}

// info builds the FlightInfo of a plan, signing one ticket per endpoint.
func (s *Server) info(desc *arrowflight.FlightDescriptor, p *flightPlan) (*arrowflight.FlightInfo, error) {
	exp := time.Now().Add(s.opts.TicketTTL).Truncate(time.Second)
	fi := &arrowflight.FlightInfo{
		Schema:           arrowflight.SerializeSchema(p.schema, memory.DefaultAllocator),
		FlightDescriptor: desc,
		Ordered:          true,
	}
	var locs []*arrowflight.Location
	for _, u := range s.opts.Advertise {
		locs = append(locs, &arrowflight.Location{Uri: u})
	}
	for _, ep := range p.endpoints {
		g := p.grant
		g.Expires = exp.Unix()
		g.Parts = ep.parts
		if ep.start != nil {
			g.Start, g.End = ep.start, ep.end
		}
		tk, err := s.sign.sign(&g)
		if err != nil {
			return nil, err
		}
		meta, _ := json.Marshal(endpointMeta{Parts: ep.parts, Rows: ep.rows, Bytes: ep.bytes})
		if p.grant.Dataset != nil {
			meta, _ = json.Marshal(datasetMeta{DataDir: p.dataDir, Files: p.files, Start: ep.start, End: ep.end})
		}
		fi.Endpoint = append(fi.Endpoint, &arrowflight.FlightEndpoint{
			Ticket:         &arrowflight.Ticket{Ticket: tk},
			Location:       locs,
			ExpirationTime: timestamppb.New(exp),
			AppMetadata:    meta,
		})
		fi.TotalRecords += ep.rows
		fi.TotalBytes += ep.bytes
	}
	if p.grant.Dataset != nil {
		// Resolved rows are counted only by reading them (Flight's -1:
		// unknown).
		fi.TotalRecords, fi.TotalBytes = -1, -1
	}
	meta, _ := json.Marshal(flightMeta{Table: p.grant.Table, Tree: p.grant.Tree, Files: p.files, Skipped: p.skipped, DataDir: p.dataDir, Rules: p.rules})
	fi.AppMetadata = meta
	return fi, nil
}

// endpointMeta is the JSON app_metadata of an endpoint: what it reads, for
// schedulers and people; the ticket itself stays opaque.
type endpointMeta struct {
	Parts []part `json:"parts"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// flightMeta is the JSON app_metadata of a FlightInfo.
type flightMeta struct {
	Table   string            `json:"table"`
	Tree    bool              `json:"tree_model,omitempty"`
	Files   int               `json:"files"`
	Skipped map[string]string `json:"skipped,omitempty"`
	// DataDir and Rules are those of a data directory's table: its path
	// ("." for the root) and the IoTDB rules its reader applies.
	DataDir string   `json:"data_directory,omitempty"`
	Rules   []string `json:"rules,omitempty"`
}

// ListFlights sends one FlightInfo per table across the root (descriptor
// [table]), then one per file and table ([file, table]), then one per
// table of each data directory ([table] when the root is one, [dir, table]
// otherwise; see dataset.go). A non-empty criteria expression keeps only
// the flights of the table it names.
func (sv *service) ListFlights(c *arrowflight.Criteria, stream arrowflight.FlightService_ListFlightsServer) error {
	s := sv.s
	want := strings.TrimSpace(string(c.GetExpression()))
	entries := s.cat.snapshot()
	tables := map[string]bool{}
	for _, e := range entries {
		for _, t := range e.tables {
			tables[t.name] = true
		}
	}
	names := make([]string, 0, len(tables))
	for t := range tables {
		if want == "" || t == want {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	defer releaseAll(entries)
	send := func(desc *arrowflight.FlightDescriptor, q *Query) error {
		if err := stream.Context().Err(); err != nil {
			return toStatus(err)
		}
		p, err := s.plan(q)
		if err != nil {
			// A file that vanished between the snapshot and the plan is
			// not worth failing the listing for.
			s.log.Debug("flight not listed", "path", desc.Path, "error", err)
			return nil
		}
		fi, err := s.info(desc, p)
		if err != nil {
			return toStatus(err)
		}
		return stream.Send(fi)
	}
	for _, t := range names {
		if err := send(&arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{t}}, &Query{Table: t}); err != nil {
			return err
		}
	}
	for _, e := range entries {
		for _, t := range e.tables {
			if want != "" && t.name != want {
				continue
			}
			desc := &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{e.rel, t.name}}
			if err := send(desc, &Query{Table: t.name, Files: []string{e.rel}}); err != nil {
				return err
			}
		}
	}
	return s.listDatasets(stream, want)
}

// planDescriptor plans what a descriptor asks for.
func (s *Server) planDescriptor(desc *arrowflight.FlightDescriptor) (*flightPlan, error) {
	q, err := queryFromDescriptor(desc)
	if err != nil {
		return nil, err
	}
	return s.plan(q)
}

// GetFlightInfo plans a descriptor into endpoints.
func (sv *service) GetFlightInfo(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	p, err := sv.s.planDescriptor(desc)
	if err != nil {
		return nil, toStatus(err)
	}
	fi, err := sv.s.info(desc, p)
	return fi, toStatus(err)
}

// GetSchema returns the schema a descriptor's streams have.
func (sv *service) GetSchema(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.SchemaResult, error) {
	p, err := sv.s.planDescriptor(desc)
	if err != nil {
		return nil, toStatus(err)
	}
	return &arrowflight.SchemaResult{Schema: arrowflight.SerializeSchema(p.schema, memory.DefaultAllocator)}, nil
}
