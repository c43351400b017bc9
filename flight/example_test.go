package flight_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/tsarrow/tsarrow/flight"
)

// Example serves a directory of TsFiles from a program of one's own, on a
// loopback port, and reads a query back with arrow-go's Flight client.
func Example() {
	srv, err := flight.NewServer(flight.Options{
		Root:   "../testdata", // every *.tsfile under it
		Tokens: []string{"secret"},
		Logger: slog.New(slog.DiscardHandler), // default: a line per stream on slog.Default()
	})
	if err != nil {
		log.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0") // any free port
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()

	rows, err := readNorth(lis.Addr().String(), "secret")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows, "rows")

	if err := srv.Shutdown(context.Background()); err != nil { // lets running streams finish
		log.Fatal(err)
	}
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	// Output: 800 rows
}

// readNorth reads the temperatures of region north from 22:15 on through a
// server at addr, and counts the rows.
func readNorth(addr, token string) (int64, error) {
	client, err := arrowflight.NewClientWithMiddleware(addr, nil, nil,
		grpc.WithTransportCredentials(insecure.NewCredentials())) // credentials.NewTLS(cfg) for TLS
	if err != nil {
		return 0, err
	}
	defer client.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
	cmd, err := json.Marshal(flight.Query{Table: "weather", Columns: []string{"temperature"},
		Start: flight.Time("2023-11-14T22:15:00Z"), Where: map[string]string{"region": "north"}})
	if err != nil {
		return 0, err
	}
	info, err := client.GetFlightInfo(ctx, &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: cmd})
	if err != nil {
		return 0, err
	}
	var rows int64
	for _, ep := range info.Endpoint { // in parallel if you like: endpoints are independent
		rdr, err := flight.DoGet(ctx, client, ep.Ticket)
		if err != nil {
			return 0, err
		}
		for rdr.Next() {
			rec := rdr.RecordBatch() // valid until the next Next; Retain to keep it
			rows += rec.NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// Example_dataDirectory serves an IoTDB data directory: its tables are
// flights of their own, read as the IoTDB server answers them (deleted
// points gone, each overwritten point once).
func Example_dataDirectory() {
	srv, err := flight.NewServer(flight.Options{
		Root:   "../testdata/iotdb", // holds sequence/ and unsequence/
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	defer func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			log.Fatal(err)
		}
		if err := <-served; err != nil {
			log.Fatal(err)
		}
	}()

	client, err := arrowflight.NewClientWithMiddleware(lis.Addr().String(), nil, nil,
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	list, err := client.ListFlights(ctx, &arrowflight.Criteria{})
	if err != nil {
		log.Fatal(err)
	}
	for {
		info, err := list.Recv()
		if err != nil {
			break // io.EOF at the end
		}
		var rows int64
		for _, ep := range info.Endpoint {
			rdr, err := flight.DoGet(ctx, client, ep.Ticket)
			if err != nil {
				// FAILED_PRECONDITION: the directory changed since
				// ListFlights; call GetFlightInfo again.
				log.Fatal(err)
			}
			for rdr.Next() {
				rows += rdr.RecordBatch().NumRows()
			}
			err = rdr.Err()
			rdr.Release()
			if err != nil {
				log.Fatal(err)
			}
		}
		fmt.Println(info.FlightDescriptor.Path, rows, "rows")
	}
	// Output:
	// [root.sg] 4 rows
	// [weather] 92 rows
}
