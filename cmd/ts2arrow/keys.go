package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/tsfile"
)

// keysHelp is the part of a verb's help about encrypted files.
const keysHelp = `
Encrypted files: a Page AEAD file names a key provider, a key id and a key
version in its header; --kek-file F (or --kek-env NAME, a variable holding
the same text) gives the key-encryption keys, one per line:
    KEY_ID KEY_VERSION HEX_KEY      (16 or 32 bytes; # starts a comment)
They are registered under the provider id tsarrow-kek, or the one given by
--kek-provider (test-aead-provider reads files written by the upstream
tests). Without a key the file's structure is still shown by inspect; its
values are not. Keys are never printed.

Files encrypted with the older footer properties (encryptLevel 2) need the
master key that wraps their data key: --legacy-master-key-file F holds its
16 bytes of text (the reference implementation's default configuration
uses abcdefghijklmnop).
`

// keyFlags are the flags that supply key-encryption keys.
type keyFlags struct {
	file, env, provider, legacy *string
}

func addKeyFlags(fs *pflag.FlagSet) *keyFlags {
	return &keyFlags{
		file:     fs.String("kek-file", "", "read key-encryption keys for encrypted files from `FILE`"),
		env:      fs.String("kek-env", "", "read key-encryption keys from the environment variable `NAME`"),
		provider: fs.String("kek-provider", aead.KeyFileProviderID, "the provider `ID` the keys are registered under"),
		legacy:   fs.String("legacy-master-key-file", "", "`FILE` holding the master key of legacy encryptLevel 2 files"),
	}
}

// registry builds the key registry the flags describe, or nil when they
// give no keys.
func (k *keyFlags) registry() (*aead.Registry, error) {
	if *k.file == "" && *k.env == "" {
		return nil, nil
	}
	if *k.file != "" && *k.env != "" {
		return nil, usagef("--kek-file and --kek-env are exclusive")
	}
	var p *aead.KEKProvider
	var err error
	if *k.file != "" {
		b, rerr := os.ReadFile(*k.file)
		if rerr != nil {
			return nil, fmt.Errorf("--kek-file: %w", rerr)
		}
		p, err = aead.ParseKEKFile(*k.provider, b)
		clear(b)
		if err != nil {
			err = fmt.Errorf("--kek-file %s: %w", *k.file, err)
		}
	} else {
		if _, ok := os.LookupEnv(*k.env); !ok {
			return nil, fmt.Errorf("--kek-env: environment variable %s is not set", *k.env)
		}
		p, err = aead.KEKProviderFromEnv(*k.provider, *k.env)
		if err != nil {
			err = fmt.Errorf("--kek-env %s: %w", *k.env, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return aead.NewRegistry(p)
}

// readOptions are the read options of a verb: lenient or not, with the
// flags' keys.
func (k *keyFlags) readOptions(lenient bool) (*tsfile.ReadOptions, error) {
	reg, err := k.registry()
	if err != nil {
		return nil, err
	}
	o := &tsfile.ReadOptions{Lenient: lenient, Keys: reg}
	if *k.legacy != "" {
		b, err := os.ReadFile(*k.legacy)
		if err != nil {
			return nil, fmt.Errorf("--legacy-master-key-file: %w", err)
		}
		mk := bytes.TrimRight(b, "\r\n")
		o.LegacyUnwrap, err = aead.LegacyAESUnwrap(mk)
		clear(b)
		if err != nil {
			return nil, fmt.Errorf("--legacy-master-key-file %s: %w", *k.legacy, err)
		}
	}
	return o, nil
}
