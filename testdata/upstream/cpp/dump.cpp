// dump.cpp: reads a TsFile with the C++ TsFile reader (apache/tsfile cpp/, TsFileReader) and
// prints its rows in the tsarrow interop CSV form. The devices, table and column names to ask
// for come from the header and device column of a CSV (the generator's intended rows), so the
// reader is asked exactly what the corpus claims the file holds.
//
// Usage: dump FILE.tsfile COLUMNS.csv OUT.csv
//
// Own code of the tsarrow project, committed as documentation of how the expected rows were made.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/db_common.h"
#include "common/device_id.h"
#include "common/row_record.h"
#include "common/schema.h"
#include "common/path.h"
#include "reader/expression.h"
#include "reader/filter/time_operator.h"
#include "reader/result_set.h"
#include "reader/tsfile_reader.h"

using namespace storage;

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

static std::string field_str(Field *f) {
  switch (f->type_) {
    case common::NULL_TYPE:
    case common::INVALID_DATATYPE:
      return "";
    case common::BOOLEAN: return f->value_.bval_ ? "true" : "false";
    case common::INT32: return std::to_string(f->value_.ival_);
    case common::INT64: return std::to_string(f->value_.lval_);
    case common::FLOAT: return fmt_float(f->value_.fval_);
    case common::DOUBLE: return fmt_double(f->value_.dval_);
    case common::STRING:
    case common::TEXT: {
      common::String *s = f->value_.strval_;
      return s == nullptr ? "" : std::string(s->buf_, s->len_);
    }
    default: return "?type" + std::to_string((int)f->type_);
  }
}

static std::vector<std::string> split(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string x;
  while (std::getline(ss, x, ',')) out.push_back(x);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: dump FILE.tsfile COLUMNS.csv OUT.csv\n");
    return 2;
  }
  std::ifstream in(argv[2]);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = split(line);
  std::vector<std::string> devices;
  bool tree = header.size() > 1 && header[1] == "device";
  if (tree) {
    while (std::getline(in, line)) {
      auto f = split(line);
      if (devices.empty() || devices.back() != f[1]) devices.push_back(f[1]);
    }
  }
  libtsfile_init();
  TsFileReader reader;
  int rc = reader.open(argv[1]);
  if (rc != 0) {
    fprintf(stderr, "open: %d\n", rc);
    return 3;
  }
  FILE *out = fopen(argv[3], "w");
  for (size_t i = 0; i < header.size(); i++) fprintf(out, "%s%s", i ? "," : "", header[i].c_str());
  fprintf(out, "\n");
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  long rows = 0;
  if (tree) {
    std::map<std::string, size_t> pos;
    for (size_t i = 2; i < header.size(); i++) pos[header[i]] = i;
    for (auto &dev : devices) {
      std::vector<MeasurementSchema> ms;
      auto id = std::make_shared<StringArrayDeviceID>(dev);
      rc = reader.get_timeseries_schema(id, ms);
      if (rc != 0) {
        fprintf(stderr, "get_timeseries_schema %s: %d\n", dev.c_str(), rc);
        return 4;
      }
      std::vector<std::string> paths;
      std::vector<size_t> cols;
      for (auto &m : ms) {
        if (!pos.count(m.measurement_name_)) continue;  // not asked for
        paths.push_back(dev + "." + m.measurement_name_);
        cols.push_back(pos.at(m.measurement_name_));
      }
      // Path(device, measurement) keeps the device's own segmentation ("root.sg", "d1");
      // TsFileReader::query(path_list, ...) splits every dot and finds no device.
      std::vector<Path> pv;
      for (auto &m : ms) {
        if (!pos.count(m.measurement_name_)) continue;
        std::string d = dev, mn = m.measurement_name_;
        pv.emplace_back(d, mn);
      }
      Filter *tf = new TimeBetween(lo, hi, false);
      Expression *ex = new Expression(GLOBALTIME_EXPR, tf);
      QueryExpression *qe = QueryExpression::create(pv, ex);
      ResultSet *rs = nullptr;
      rc = reader.query(qe, rs);
      if (rc != 0) {
        fprintf(stderr, "query %s: %d\n", dev.c_str(), rc);
        return 5;
      }
      bool has = false;
      while ((rc = rs->next(has)) == 0 && has) {
        RowRecord *rr = rs->get_row_record();
        std::vector<std::string> row(header.size());
        row[0] = std::to_string(rr->get_timestamp());
        row[1] = dev;
        for (size_t i = 0; i < cols.size(); i++) row[cols[i]] = field_str(rr->get_field(i + 1));
        for (size_t i = 0; i < row.size(); i++) fprintf(out, "%s%s", i ? "," : "", row[i].c_str());
        fprintf(out, "\n");
        rows++;
      }
      if (rc != 0) {
        fprintf(stderr, "next %s: %d\n", dev.c_str(), rc);
        return 6;
      }
      reader.destroy_query_data_set(rs);
    }
  } else {
    auto schemas = reader.get_all_table_schemas();
    if (schemas.size() != 1) {
      fprintf(stderr, "tables: %zu\n", schemas.size());
      return 7;
    }
    std::string table = schemas[0]->get_table_name();
    std::vector<std::string> cols(header.begin() + 1, header.end());
    ResultSet *rs = nullptr;
    rc = reader.query(table, cols, lo, hi, rs);
    if (rc != 0) {
      fprintf(stderr, "query %s: %d\n", table.c_str(), rc);
      return 5;
    }
    bool has = false;
    while ((rc = rs->next(has)) == 0 && has) {
      RowRecord *rr = rs->get_row_record();
      for (uint32_t i = 0; i < header.size(); i++)
        fprintf(out, "%s%s", i ? "," : "", field_str(rr->get_field(i)).c_str());
      fprintf(out, "\n");
      rows++;
    }
    if (rc != 0) {
      fprintf(stderr, "next: %d\n", rc);
      return 6;
    }
    rs->close();
  }
  fclose(out);
  reader.close();
  fprintf(stderr, "%ld rows\n", rows);
  return 0;
}
