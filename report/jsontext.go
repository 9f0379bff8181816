package report

// AppendJSONString appends s as a JSON string, as json.Marshal writes it
// and as every JSON output of report does; annotate writes trace events'
// names with it.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }
