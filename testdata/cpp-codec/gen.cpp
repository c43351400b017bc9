// Writes a tree-model non-aligned file with the C++ TsFile writer: INT32 PLAIN, FLOAT and DOUBLE TS_2DIFF (test harness, /tmp only).
#include <fcntl.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>
#include "common/db_common.h"
#include "common/schema.h"
#include "common/tablet.h"
#include "writer/tsfile_writer.h"
using namespace storage;
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int mode = atoi(argv[2]); // 0: recoverable values; 1: INT32 extremes and a lossy TS_2DIFF block
  libtsfile_init();
  TsFileWriter w;
  if (w.open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0666) != 0) return 3;
  std::vector<MeasurementSchema> schema;
  const char *names[] = {"i32", "f32", "f64"};
  common::TSDataType types[] = {common::TSDataType::INT32, common::TSDataType::FLOAT, common::TSDataType::DOUBLE};
  common::TSEncoding encs[] = {common::TSEncoding::PLAIN, common::TSEncoding::TS_2DIFF, common::TSEncoding::TS_2DIFF};
  for (int j = 0; j < 3; j++) {
    schema.push_back(MeasurementSchema(names[j], types[j], encs[j], common::CompressionType::UNCOMPRESSED));
    if (w.register_timeseries("root.sg.d1", names[j], types[j], encs[j], common::CompressionType::UNCOMPRESSED) != 0) return 4;
  }
  const int rows = 12;
  int32_t i32[rows] = {5, -3, (1 << 30) - 1, -(1 << 30), 7, -1, 0, 12, 1, 2, 3, -4};
  float f32[rows] = {1e-40f, std::numeric_limits<float>::denorm_min(), 0.0f, 1.5f,
                     NAN, INFINITY, std::numeric_limits<float>::max(), 3e38f,
                     -0.0f, -std::numeric_limits<float>::denorm_min(), -INFINITY, -std::numeric_limits<float>::max()};
  double f64[rows] = {1e-310, std::numeric_limits<double>::denorm_min(), 0.0, 1.5,
                      NAN, INFINITY, std::numeric_limits<double>::max(), 3e307,
                      -0.0, -std::numeric_limits<double>::denorm_min(), -INFINITY, -std::numeric_limits<double>::max()};
  if (mode == 1) {
    i32[5] = std::numeric_limits<int32_t>::min();
    i32[6] = std::numeric_limits<int32_t>::max();
    f32[0] = 0.0f; f32[1] = -1.0f; f32[2] = 0.0f; // deltas spanning more than 2^31: lost
    f64[0] = 0.0; f64[1] = -1.0; f64[2] = 0.0;
  }
  Tablet t("root.sg.d1", &schema, rows);
  t.init();
  for (int r = 0; r < rows; r++) {
    t.set_timestamp(r, 1700000000000LL + r * 1000);
    t.set_value(r, 0u, i32[r]);
    t.set_value(r, 1u, f32[r]);
    t.set_value(r, 2u, f64[r]);
  }
  if (w.write_tablet(t) != 0) return 5;
  if (w.flush() != 0) return 6;
  if (w.close() != 0) return 7;
  return 0;
}
