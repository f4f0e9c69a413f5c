package blocks_test

import (
	"strings"
	"testing"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func fuzzProblem() *model.Problem {
	return &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 8}, {ID: "b", Start: 1, End: 3, Size: 4},
		{ID: "c", Start: 2, End: 4, Size: 6, Alias: nil},
	}}
}

// FuzzReadPlanCSV: any input gives an error or a plan the verifier can
// judge without panicking.
func FuzzReadPlanCSV(f *testing.F) {
	f.Add("id,block,block_size\na,0,8\nb,1,4\nc,0,8\n")
	f.Add("id,lower,upper,size,block,block_size,offset\na,0,2,8,0,8,0\nb,1,3,4,1,4,0\nc,2,4,6,0,8,0\n")
	f.Add("id,block,block_size\na,-1,0\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		p := fuzzProblem()
		bp, err := blocks.ReadPlanCSV(strings.NewReader(s), "f.csv", p)
		if err != nil {
			return
		}
		_ = verify.BlockCheck(p, bp.Sizes(), bp.Assign)
	})
}

// FuzzReadScheduleCSV: any input gives an error or events the verifier
// replays without panicking.
func FuzzReadScheduleCSV(f *testing.F) {
	f.Add("time,op,block,buffer,size,offset,model\n0,new,0,,8,,\n0,take,0,a,8,0,\n2,release,0,a,,,\n")
	f.Add("time,op,block\n1,retire,7\n")
	f.Add("time,op,block,buffer\n0,take,-3,zz\n")
	f.Fuzz(func(t *testing.T, s string) {
		ev, err := blocks.ReadScheduleCSV(strings.NewReader(s), "s.csv")
		if err != nil {
			return
		}
		_ = verify.BlockCheckSchedule(fuzzProblem(), []int64{8, 4}, []int{0, 1, 0}, ev)
	})
}
