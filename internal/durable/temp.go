package durable

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errPattern is returned for a temporary name pattern holding a path
// separator.
var errPattern = errors.New("durable: pattern contains a path separator")

// CreateTemp is os.CreateTemp, but the file gets the mode os.Create gives
// it (0o666 less the process's umask) rather than 0o600: a temporary that
// becomes an output by a rename or link keeps its mode, and an output
// should have the mode the user's umask asks for, as a file cp or a shell
// redirection writes. The mode is set as the file is created, so no
// chmod is needed and none can be missed before the sync. The last "*" of
// pattern becomes a random decimal number, as with os.CreateTemp.
func CreateTemp(dir, pattern string) (*os.File, error) {
	name, err := tempName(dir, pattern)
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		f, err := os.OpenFile(name(), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// MkdirTemp is os.MkdirTemp, but the directory gets the mode os.Mkdir
// gives it with 0o777 (less the umask) rather than 0o700, for a directory
// that becomes an output by a rename.
func MkdirTemp(dir, pattern string) (string, error) {
	name, err := tempName(dir, pattern)
	if err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		p := name()
		err := os.Mkdir(p, 0o777)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return "", err
		}
		return p, nil
	}
}

// tempName returns a function giving a new random name of pattern in dir.
func tempName(dir, pattern string) (func() string, error) {
	if strings.ContainsRune(pattern, os.PathSeparator) || strings.ContainsRune(pattern, '/') {
		return nil, &os.PathError{Op: "createtemp", Path: pattern, Err: errPattern}
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	if dir == "" {
		dir = os.TempDir()
	}
	return func() string {
		return filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
	}, nil
}
