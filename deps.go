package main
import (
 _ "github.com/tidwall/gjson"
 _ "github.com/spf13/cobra"
 _ "gonum.org/v1/plot"
 _ "github.com/google/pprof/profile"
 _ "modernc.org/sqlite"
 _ "github.com/google/go-cmp/cmp"
 _ "golang.org/x/tools/txtar"
)
func main(){}
