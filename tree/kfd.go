package tree

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goffload/goffload/targetid"
)

// MachineGPUs reads the GPUs of this machine from the kernel's KFD
// topology, as the ROCm runtime does, without ROCm installed: each node's
// properties file under sysfs (normally /sys) whose gfx_target_version is
// not 0 (CPU nodes), major·10000 + minor·100 + stepping (90010 is gfx90a).
// Modes are left open: the topology does not say them. Each GPU model once.
func MachineGPUs(sysfs string) ([]targetid.Target, error) {
	nodes, err := filepath.Glob(filepath.Join(sysfs, "class/kfd/kfd/topology/nodes/*/properties"))
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("tree: no KFD topology under %s (no AMD GPU driver loaded?)", filepath.Join(sysfs, "class/kfd/kfd/topology/nodes"))
	}
	seen := map[string]bool{}
	var gpus []targetid.Target
	for _, n := range nodes {
		v, err := targetVersion(n)
		if err != nil {
			return nil, err
		}
		if v == 0 {
			continue
		}
		name := fmt.Sprintf("gfx%d%x%x", v/10000, v/100%100, v%100)
		if !seen[name] {
			seen[name] = true
			gpus = append(gpus, targetid.Target{Processor: name})
		}
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("tree: the KFD topology under %s lists no GPU", sysfs)
	}
	sort.Slice(gpus, func(i, j int) bool { return gpus[i].Processor < gpus[j].Processor })
	return gpus, nil
}

func targetVersion(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "gfx_target_version "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return 0, fmt.Errorf("tree: %s: gfx_target_version %q: %w", path, v, err)
			}
			return n, nil
		}
	}
	return 0, sc.Err()
}
