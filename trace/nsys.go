package trace

import "context"

// nsysFormat reads Nsight Systems SQLite exports. (Placeholder: being written.)
type nsysFormat struct{}

func (nsysFormat) name() string                                          { return "nsys" }
func (nsysFormat) sniff(head []byte) bool                                { return false }
func (nsysFormat) decode(ctx context.Context, in *input) (*Trace, error) { return nil, nil }
