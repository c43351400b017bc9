// Package quirklayout lets tsarrow's tests write TsFiles in the layouts of
// known writer quirks (tsfile.WriterQuirk), which no user should write: the
// switch is kept out of tsfile.WriteOptions' exported fields.
package quirklayout

// Set makes the *tsfile.WriteOptions opts write the layouts of the
// tsfile.WriterQuirk bits q. Package tsfile installs it when it is
// initialised; the types are erased here because this package cannot
// import tsfile, which imports it.
var Set func(opts any, q uint32)
