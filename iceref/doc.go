// Package iceref parses how a command line names an Iceberg table and its
// layout: iceberg:CATALOG#NAMESPACE.TABLE inputs (Ref, ParseInput) and
// partition specs as ts2arrow sync's --partition takes them
// (ParsePartition). It needs no iceberg-go, whose table package does
// costly work when a program starts: packages icescan and icesync, which
// do link it, take these names from here, and so can a program that only
// tells such inputs apart (ts2arrow, which runs ts2arrow-iceberg for them).
package iceref
