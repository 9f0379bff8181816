package main

import (
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/pprof/profile"
	_ "github.com/spf13/cobra"
	_ "github.com/tidwall/gjson"
	_ "golang.org/x/tools/txtar"
	_ "gonum.org/v1/plot"
	_ "modernc.org/sqlite"
)

func main() {}
