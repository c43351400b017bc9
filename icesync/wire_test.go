package icesync

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// TestBucketingAgreesWithIceberg checks the bucket of a time, and the
// times of a bucket, against iceberg-go's own transforms (the partition
// values its writer gives data files) for day, hour, month and year of a
// millisecond time, around 1970, leap days and month ends; and that a spec
// without a time transform is one bucket.
func TestBucketingAgreesWithIceberg(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "time", Type: iceberg.TimestampTzType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.Int64})
	times := []int64{0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
		951_782_400_000 - 1, 951_782_400_000, 951_868_800_000, // 2000-02-29, 2000-03-01
		1_767_225_600_000 - 1, 1_767_225_600_000, 1_767_398_400_000 + 12345, -2_208_988_800_000}
	for _, tr := range []iceberg.Transform{iceberg.DayTransform{}, iceberg.HourTransform{}, iceberg.MonthTransform{}, iceberg.YearTransform{}} {
		fid := iceberg.PartitionDataIDStart
		spec, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldBySourceID(1, "p", tr, sc, &fid))
		if err != nil {
			t.Fatal(err)
		}
		bk := bucketingOfSpec(spec, 1, 1000)
		if bk.field != fid {
			t.Fatalf("%s: field %d, want %d", tr, bk.field, fid)
		}
		ref, err := tr.(interface {
			Transformer(iceberg.Type) (func(any) iceberg.Optional[int32], error)
		}).Transformer(iceberg.TimestampTzType{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ms := range times {
			want := int64(ref(iceberg.Timestamp(ms * 1000)).Val)
			b := bk.bucket(ms)
			if b != want {
				t.Errorf("%s of %d ms: bucket %d, iceberg-go %d", tr, ms, b, want)
			}
			lo, hi := bk.span(b)
			if lo > ms || hi < ms || bk.bucket(lo) != b || bk.bucket(hi) != b || bk.bucket(lo-1) != b-1 || bk.bucket(hi+1) != b+1 {
				t.Errorf("%s bucket %d: span %d..%d does not hold exactly its times (%d)", tr, b, lo, hi, ms)
			}
		}
	}
	fid := iceberg.PartitionDataIDStart
	spec, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldBySourceID(2, "v", iceberg.IdentityTransform{}, sc, &fid))
	if err != nil {
		t.Fatal(err)
	}
	if bk := bucketingOfSpec(spec, 1, 1000); bk.field != -1 || bk.bucket(123456789) != 0 || bk.bucket(-5) != 0 {
		t.Fatalf("a spec without time: field %d", bk.field)
	}
}
