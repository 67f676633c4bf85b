//go:build !linux

package httpx

import "syscall"

// setCork does nothing where TCP_CORK is not known: WriteRawOnce then writes as
// WriteRaw.
func setCork(syscall.RawConn, bool) bool { return false }
