package trace

import "context"

// kinetoFormat reads Kineto JSON. (Placeholder: being written.)
type kinetoFormat struct{}

func (kinetoFormat) name() string                                          { return "kineto" }
func (kinetoFormat) sniff(head []byte) bool                                { return false }
func (kinetoFormat) decode(ctx context.Context, in *input) (*Trace, error) { return nil, nil }
