//go:build unix

package atomicfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

var watchOnce sync.Once

// watchSignals makes SIGINT, SIGTERM and SIGHUP (those not ignored when
// the process started: nohup's SIGHUP stays ignored) remove the pending
// temporary files, then end the process by the same signal, as it would
// have ended without the watch. It starts on the first named temporary
// file: a process that never names one keeps the default handling.
func watchSignals() {
	watchOnce.Do(func() {
		var sigs []os.Signal
		for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			if !signal.Ignored(s) {
				sigs = append(sigs, s)
			}
		}
		if len(sigs) == 0 {
			return
		}
		c := make(chan os.Signal, 1)
		signal.Notify(c, sigs...)
		go func() {
			s := (<-c).(syscall.Signal)
			removePending()
			signal.Reset(s)
			syscall.Kill(os.Getpid(), s)
			// The default action ends the process; should the signal be
			// blocked, exit as a shell reports a death by it.
			time.Sleep(time.Second)
			os.Exit(128 + int(s))
		}()
	})
}
