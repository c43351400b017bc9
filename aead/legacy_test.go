package aead

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The expected bytes in this file come from OpenSSL or Python, never from
// this package, following what the Java reference does (see legacy.go):
// AES-128-CTR, IV = key, every page starting at that IV.

// legacyNISTKeyHex is the AES-128 key of FIPS-197 / SP 800-38A.
const (
	legacyNISTKeyHex = "2b7e151628aed2a6abf7158809cf4f3c"
	// python3 -c 'k=bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c");
	//   print(",".join(str(x-256 if x>127 else x) for x in k))'
	legacyNISTKeyText = "43,126,21,22,40,-82,-46,-90,-85,-9,21,-120,9,-49,79,60"
	// 37 bytes: not a multiple of the AES block size.
	legacyPlain = "TsFile legacy AES-128-CTR page body!!"
	// printf 'TsFile legacy AES-128-CTR page body!!' | openssl enc -aes-128-ctr \
	//   -K 2b7e151628aed2a6abf7158809cf4f3c -iv 2b7e151628aed2a6abf7158809cf4f3c -nosalt | xxd -p
	// (python3 cryptography Cipher(AES(k), CTR(k)) gives the same bytes)
	legacyNISTCipherHex = "2b46d7ba03b037cf1e0a8883a6b30a3f75cb90403474a0c3f447839e9b759ae7d5f5e1aa01"
)

func legacyUnhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func legacyLevel1(typ, key string) LegacyProperties {
	return LegacyProperties{
		Level: []byte("1"), HasLevel: true,
		Type: []byte(typ), HasType: true,
		Key: []byte(key), HasKey: true,
	}
}

func mustParseLegacy(t *testing.T, p LegacyProperties, unwrap LegacyUnwrapFunc) *LegacyScheme {
	t.Helper()
	s, err := ParseLegacy(p, unwrap)
	if err != nil {
		t.Fatalf("ParseLegacy: %v", err)
	}
	if s == nil {
		t.Fatal("ParseLegacy returned nil scheme for an encrypted file")
	}
	t.Cleanup(s.Close)
	return s
}

func TestLegacyUnencrypted(t *testing.T) {
	cases := map[string]LegacyProperties{
		"no properties": {},
		"level absent, others present": {
			Type: []byte(LegacyTypeAES128), HasType: true,
			Key: []byte(legacyNISTKeyText), HasKey: true,
		},
		"level 0": {Level: []byte("0"), HasLevel: true},
		// Java overwrites type and key at level 0, whatever they say.
		"level 0 with SM4 and junk key": {
			Level: []byte("0"), HasLevel: true,
			Type: []byte("SM4128"), HasType: true,
			Key: []byte("not a key"), HasKey: true,
		},
		"level 1 UNENCRYPTED class": legacyLevel1(LegacyTypeUnencrypted, legacyNISTKeyText),
		"level 1 UNENCRYPTED enum":  legacyLevel1("UNENCRYPTED", legacyNISTKeyText),
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := ParseLegacy(p, nil)
			if err != nil || s != nil {
				t.Fatalf("got (%v, %v), want (nil, nil)", s, err)
			}
		})
	}
}

func TestLegacyLevel1Vector(t *testing.T) {
	want := legacyUnhex(t, legacyNISTCipherHex)
	for _, typ := range []string{LegacyTypeAES128, "AES128"} {
		t.Run(typ, func(t *testing.T) {
			s := mustParseLegacy(t, legacyLevel1(typ, legacyNISTKeyText), nil)
			if s.Level != 1 || s.Type != typ {
				t.Fatalf("Level, Type = %d, %q", s.Level, s.Type)
			}
			ct, err := s.Encrypt(nil, []byte(legacyPlain))
			if err != nil || !bytes.Equal(ct, want) {
				t.Fatalf("Encrypt = %x, %v; want %x", ct, err, want)
			}
			if len(ct) != len(legacyPlain) {
				t.Fatalf("ciphertext length %d, want %d (compressed_size unchanged)", len(ct), len(legacyPlain))
			}
			// Append to a non-empty dst.
			pt, err := s.Decrypt([]byte("hdr:"), want)
			if err != nil || string(pt) != "hdr:"+legacyPlain {
				t.Fatalf("Decrypt = %q, %v", pt, err)
			}
			// In place.
			buf := bytes.Clone(want)
			pt, err = s.Decrypt(buf[:0], buf)
			if err != nil || string(pt) != legacyPlain || &pt[0] != &buf[0] {
				t.Fatalf("in-place Decrypt = %q, %v", pt, err)
			}
		})
	}
}

// TestLegacyCounterCarry checks that the 128-bit counter carries across
// bytes as in Java's SunJCE CTR and OpenSSL (third block: ...0b ff ff ff ff
// + 1 = ...0c 00 00 00 00).
func TestLegacyCounterCarry(t *testing.T) {
	const keyHex = "000102030405060708090a0bfffffffe"
	// head -c 40 /dev/zero | openssl enc -aes-128-ctr -K 000102030405060708090a0bfffffffe \
	//   -iv 000102030405060708090a0bfffffffe -nosalt | xxd -p
	want := legacyUnhex(t, "a6a4436d458795fbd8674150366891021e864c0e593f2d892a8af3ab0789b6ce8077c23c8c6cff24")
	key := legacyUnhex(t, keyHex)
	s := mustParseLegacy(t, legacyLevel1(LegacyTypeAES128, string(AppendLegacyKeyText(nil, key))), nil)
	got, err := s.Encrypt(nil, make([]byte, 40))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %x, %v; want %x", got, err, want)
	}
}

// TestLegacyEveryPageRestarts documents the reference behaviour (and its
// weakness): each page is encrypted from the same IV, so equal page bodies
// give equal stored bytes.
func TestLegacyEveryPageRestarts(t *testing.T) {
	s := mustParseLegacy(t, legacyLevel1(LegacyTypeAES128, legacyNISTKeyText), nil)
	a, _ := s.Encrypt(nil, []byte(legacyPlain))
	b, _ := s.Encrypt(nil, []byte(legacyPlain))
	if !bytes.Equal(a, b) {
		t.Fatal("pages do not restart the key stream; Java files would not decrypt")
	}
	empty, err := s.Decrypt([]byte("x"), nil)
	if err != nil || string(empty) != "x" {
		t.Fatalf("empty page: %q, %v", empty, err)
	}
}

func TestLegacyKeyText(t *testing.T) {
	nist := legacyUnhex(t, legacyNISTKeyHex)
	if got := string(AppendLegacyKeyText(nil, nist)); got != legacyNISTKeyText {
		t.Fatalf("AppendLegacyKeyText = %q, want %q", got, legacyNISTKeyText)
	}
	sixteen := func(first string) string { return first + strings.Repeat(",1", 15) }
	valid := map[string]string{
		"java writer form":        legacyNISTKeyText,
		"plus sign":               "+43,+126,21,22,40,-82,-46,-90,-85,-9,21,-120,9,-49,79,+60",
		"trailing commas dropped": legacyNISTKeyText + ",,",
		"leading zeros":           "0000000000000043,126,21,22,40,-82,-46,-90,-85,-9,21,-120,9,-49,79,60",
		"-128":                    sixteen("-128"),
		"127":                     sixteen("127"),
	}
	for name, text := range valid {
		t.Run("valid/"+name, func(t *testing.T) {
			if _, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, text), nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Two spellings of the same key must give the same cipher.
	a := mustParseLegacy(t, legacyLevel1(LegacyTypeAES128, valid["plus sign"]), nil)
	b := mustParseLegacy(t, legacyLevel1(LegacyTypeAES128, valid["leading zeros"]), nil)
	ca, _ := a.Encrypt(nil, []byte(legacyPlain))
	cb, _ := b.Encrypt(nil, []byte(legacyPlain))
	if !bytes.Equal(ca, legacyUnhex(t, legacyNISTCipherHex)) || !bytes.Equal(cb, ca) {
		t.Fatal("equivalent key texts decrypt differently")
	}

	invalid := map[string]string{
		"hex":            legacyNISTKeyHex,
		"base64":         "K34VFiiu0qar9xWICc9PPA==",
		"15 values":      strings.Repeat("1,", 14) + "1",
		"17 values":      strings.Repeat("1,", 16) + "1",
		"128":            sixteen("128"),
		"-129":           sixteen("-129"),
		"huge":           sixteen("99999999999999999999999"),
		"leading comma":  "," + legacyNISTKeyText,
		"empty field":    strings.Replace(legacyNISTKeyText, ",", ",,", 1),
		"space":          sixteen(" 1"),
		"sign only":      sixteen("-"),
		"0x prefix":      sixteen("0x1"),
		"non-ascii 1":    sixteen("\u0661"), // Java accepts Unicode digits; we do not
		"only commas":    ",,,",
		"unsigned bytes": "43,126,21,22,40,174,210,166,171,247,21,136,9,207,79,60",
	}
	for name, text := range invalid {
		t.Run("invalid/"+name, func(t *testing.T) {
			s, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, text), nil)
			if !errors.Is(err, ErrLegacyKey) || s != nil {
				t.Fatalf("got (%v, %v), want ErrLegacyKey", s, err)
			}
		})
	}
}

// Level 2 files as the Java writer makes them with its default master key
// "abcdefghijklmnop" and the AES128 type:
//
//	dk      = MD5("IoTDB is the best" + mk)            (2024 releases)
//	        = SHA-256("IoTDB is the best" + mk)[:16]   (later releases)
//	wrapped = AES-128-CTR(key = mk, IV = mk)(dk)
//	encryptKey = signed decimal bytes of wrapped
//
// computed with
//
//	python3 - <<'EOF'
//	from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
//	import hashlib
//	def ctr(k, d):
//	    e = Cipher(algorithms.AES(k), modes.CTR(k)).encryptor(); return e.update(d) + e.finalize()
//	text = lambda b: ",".join(str(x - 256 if x > 127 else x) for x in b)
//	mk = b"abcdefghijklmnop"; pt = b"TsFile legacy AES-128-CTR page body!!"
//	for dk in (hashlib.md5(b"IoTDB is the best" + mk).digest(),
//	           hashlib.sha256(b"IoTDB is the best" + mk).digest()[:16]):
//	    print(text(ctr(mk, dk)), ctr(dk, pt).hex())
//	EOF
func TestLegacyLevel2JavaDefault(t *testing.T) {
	cases := []struct{ name, keyText, pageHex string }{
		{"md5", "-29,100,8,18,116,-113,-85,-49,-59,-27,-70,118,-116,126,-11,-23",
			"71a91b7631dc839fef53ead518266a970ed8d109af2f21b9784db14ae638a39fb9084c7979"},
		{"sha256", "14,95,-121,36,-121,-88,-48,34,42,-42,-12,47,65,-50,72,-81",
			"a00f2009a3b1959a8786bc2a31e5e89b62dd4a2ef91addcfaa90f4ea542f042dd21f341ee5"},
	}
	unwrap, err := LegacyAESUnwrap([]byte("abcdefghijklmnop"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := legacyLevel1(LegacyTypeAES128, c.keyText)
			p.Level = []byte("2")
			s := mustParseLegacy(t, p, unwrap)
			if s.Level != 2 {
				t.Fatalf("Level = %d", s.Level)
			}
			pt, err := s.Decrypt(nil, legacyUnhex(t, c.pageHex))
			if err != nil || string(pt) != legacyPlain {
				t.Fatalf("Decrypt = %q, %v", pt, err)
			}
		})
	}
	// Wrapping is the same function: a writer can produce the text.
	dk := legacyUnhex(t, "4a7721bded2826cd6b24c626fb295f06") // the md5 data key above
	w, _ := unwrap(dk)
	if got := string(AppendLegacyKeyText(nil, w)); got != cases[0].keyText {
		t.Fatalf("wrap text = %q, want %q", got, cases[0].keyText)
	}
	if _, err := LegacyAESUnwrap(make([]byte, 15)); !errors.Is(err, ErrLegacyKey) {
		t.Fatalf("15-byte master key: %v", err)
	}
}

func TestLegacyLevel2Hook(t *testing.T) {
	p := legacyLevel1(LegacyTypeAES128, legacyNISTKeyText)
	p.Level = []byte("2")

	t.Run("no master key", func(t *testing.T) {
		s, err := ParseLegacy(p, nil)
		if !errors.Is(err, ErrLegacyKey) || s != nil || !strings.Contains(err.Error(), "needs a master key") {
			t.Fatalf("got (%v, %v)", s, err)
		}
	})
	t.Run("custom hook", func(t *testing.T) {
		var seen, returned []byte
		s := mustParseLegacy(t, p, func(wrapped []byte) ([]byte, error) {
			seen = bytes.Clone(wrapped)
			returned = legacyUnhex(t, legacyNISTKeyHex)
			return returned, nil
		})
		if !bytes.Equal(seen, legacyUnhex(t, legacyNISTKeyHex)) {
			t.Fatalf("hook saw %x", seen)
		}
		if !bytes.Equal(returned, make([]byte, 16)) {
			t.Fatal("unwrapped key handed to ParseLegacy was not wiped")
		}
		ct, _ := s.Encrypt(nil, []byte(legacyPlain))
		if !bytes.Equal(ct, legacyUnhex(t, legacyNISTCipherHex)) {
			t.Fatal("hook key not used")
		}
	})
	t.Run("hook error", func(t *testing.T) {
		hookErr := errors.New("kms unavailable")
		s, err := ParseLegacy(p, func([]byte) ([]byte, error) { return nil, hookErr })
		if !errors.Is(err, ErrLegacyKey) || !errors.Is(err, hookErr) || s != nil {
			t.Fatalf("got (%v, %v)", s, err)
		}
	})
	t.Run("hook wrong length", func(t *testing.T) {
		s, err := ParseLegacy(p, func([]byte) ([]byte, error) { return make([]byte, 32), nil })
		if !errors.Is(err, ErrLegacyKey) || s != nil {
			t.Fatalf("got (%v, %v)", s, err)
		}
	})
}

func TestLegacyUnsupportedCipher(t *testing.T) {
	for _, typ := range []string{"SM4128", "org.apache.tsfile.encrypt.SM4128"} {
		s, err := ParseLegacy(legacyLevel1(typ, legacyNISTKeyText), nil)
		if !errors.Is(err, ErrUnsupportedCipher) || s != nil || !strings.Contains(err.Error(), "SM4") ||
			!strings.Contains(err.Error(), "not supported") {
			t.Fatalf("%s: got (%v, %v)", typ, s, err)
		}
	}
	for _, typ := range []string{"com.example.MyCipher", "aes128", "AES256", ""} {
		s, err := ParseLegacy(legacyLevel1(typ, legacyNISTKeyText), nil)
		if !errors.Is(err, ErrUnsupportedCipher) || s != nil || !strings.Contains(err.Error(), `"`+typ+`"`) {
			t.Fatalf("%q: got (%v, %v)", typ, s, err)
		}
	}
	long := strings.Repeat("x", 10000)
	_, err := ParseLegacy(legacyLevel1(long, legacyNISTKeyText), nil)
	if !errors.Is(err, ErrUnsupportedCipher) || len(err.Error()) > 300 {
		t.Fatalf("long type: %d-byte message", len(err.Error()))
	}
}

func TestLegacyMalformedProperties(t *testing.T) {
	for _, lvl := range []string{"3", "", " 1", "01", "-1", "１"} {
		p := legacyLevel1(LegacyTypeAES128, legacyNISTKeyText)
		p.Level = []byte(lvl)
		if s, err := ParseLegacy(p, nil); !errors.Is(err, ErrLegacyProperties) || s != nil {
			t.Fatalf("level %q: got (%v, %v)", lvl, s, err)
		}
	}
	noType := legacyLevel1(LegacyTypeAES128, legacyNISTKeyText)
	noType.HasType = false
	noKey := legacyLevel1(LegacyTypeAES128, legacyNISTKeyText)
	noKey.HasKey = false
	emptyKey := legacyLevel1(LegacyTypeAES128, "")
	for name, p := range map[string]LegacyProperties{"no type": noType, "no key": noKey, "empty key": emptyKey} {
		if s, err := ParseLegacy(p, nil); !errors.Is(err, ErrLegacyProperties) || s != nil {
			t.Fatalf("%s: got (%v, %v)", name, s, err)
		}
	}
}

// TestLegacyWrongKey documents that the legacy scheme has no
// authentication: a wrong key is not detected here, it just yields other
// bytes (decompression or decoding may or may not notice later).
func TestLegacyWrongKey(t *testing.T) {
	wrong := mustParseLegacy(t, legacyLevel1(LegacyTypeAES128, strings.Replace(legacyNISTKeyText, "43", "44", 1)), nil)
	pt, err := wrong.Decrypt(nil, legacyUnhex(t, legacyNISTCipherHex))
	if err != nil {
		t.Fatalf("wrong key gave an error (%v); legacy has no authentication", err)
	}
	if len(pt) != len(legacyPlain) || string(pt) == legacyPlain {
		t.Fatalf("wrong key gave %q", pt)
	}
}

func TestLegacyClose(t *testing.T) {
	s, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, legacyNISTKeyText), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s.key != [16]byte{} {
		t.Fatal("Close left key bytes")
	}
	if _, err := s.Decrypt(nil, []byte("abc")); !errors.Is(err, ErrLegacyKey) {
		t.Fatalf("Decrypt after Close: %v", err)
	}
	if _, err := s.Encrypt(nil, []byte("abc")); !errors.Is(err, ErrLegacyKey) {
		t.Fatalf("Encrypt after Close: %v", err)
	}
	s.Close() // idempotent
	var nilScheme *LegacyScheme
	nilScheme.Close()
	if _, err := nilScheme.Decrypt(nil, []byte("abc")); !errors.Is(err, ErrLegacyKey) {
		t.Fatalf("nil scheme must not pass ciphertext through: %v", err)
	}
}

func TestLegacyMasterKeyFromToken(t *testing.T) {
	// python3 -c 'import hashlib; print(hashlib.pbkdf2_hmac("sha256",
	//   b"my-iotdb-token", b"hardware-code-123", 1024, 16).hex())'
	k, err := LegacyMasterKeyFromToken("my-iotdb-token", []byte("hardware-code-123"))
	if err != nil || hex.EncodeToString(k) != "8faabf55b72dd15b55dd876734ac4c52" {
		t.Fatalf("got %x, %v", k, err)
	}
	if _, err := LegacyMasterKeyFromToken("", []byte("salt")); !errors.Is(err, ErrLegacyKey) {
		t.Fatalf("empty token: %v", err)
	}
}

// TestLegacyErrorsHideKey drives every key-related error path with
// distinctive key material and checks that no message shows it.
func TestLegacyErrorsHideKey(t *testing.T) {
	key := legacyUnhex(t, "b3c4d5e6f708192a3b4c5d6e7f8091a2")
	text := string(AppendLegacyKeyText(nil, key))
	fields := strings.Split(text, ",")
	forbidden := []string{text, hex.EncodeToString(key), strings.ToUpper(hex.EncodeToString(key)), string(key)}
	for i := 0; i+1 < len(fields); i++ {
		forbidden = append(forbidden, fields[i]+","+fields[i+1])
	}
	p2 := legacyLevel1(LegacyTypeAES128, text)
	p2.Level = []byte("2")
	hookErr := errors.New("denied")
	cases := map[string]func() error{
		"17 values": func() error {
			_, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, text+",1"), nil)
			return err
		},
		"15 values": func() error {
			_, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, strings.Join(fields[:15], ",")), nil)
			return err
		},
		"bad field": func() error {
			_, err := ParseLegacy(legacyLevel1(LegacyTypeAES128, text+"x"), nil)
			return err
		},
		"SM4":          func() error { _, err := ParseLegacy(legacyLevel1("SM4128", text), nil); return err },
		"unknown type": func() error { _, err := ParseLegacy(legacyLevel1("Nope", text), nil); return err },
		"no unwrap":    func() error { _, err := ParseLegacy(p2, nil); return err },
		"unwrap error": func() error {
			_, err := ParseLegacy(p2, func([]byte) ([]byte, error) { return nil, hookErr })
			return err
		},
		"unwrap length": func() error {
			_, err := ParseLegacy(p2, func(w []byte) ([]byte, error) { return append(bytes.Clone(key), w...), nil })
			return err
		},
		"closed": func() error {
			s, _ := ParseLegacy(legacyLevel1(LegacyTypeAES128, text), nil)
			s.Close()
			_, err := s.Decrypt(nil, key)
			return err
		},
		"master key length": func() error { _, err := LegacyAESUnwrap(key[:15]); return err },
	}
	for name, f := range cases {
		err := f()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		msg := err.Error()
		for _, bad := range forbidden {
			if strings.Contains(msg, bad) {
				t.Fatalf("%s: message %q reveals key material %q", name, msg, bad)
			}
		}
	}
}

func FuzzParseLegacy(f *testing.F) {
	f.Add([]byte("1"), []byte(LegacyTypeAES128), []byte(legacyNISTKeyText), uint8(7), []byte("page"))
	f.Add([]byte("2"), []byte("AES128"), []byte(legacyNISTKeyText), uint8(7), []byte(""))
	f.Add([]byte("2"), []byte("AES128"), []byte(legacyNISTKeyText), uint8(15), []byte("x"))
	f.Add([]byte("0"), []byte("SM4128"), []byte("junk"), uint8(1), []byte("x"))
	f.Add([]byte("1"), []byte("UNENCRYPTED"), []byte(",,,-"), uint8(7), []byte("x"))
	f.Add([]byte("9"), []byte(""), []byte("+-1,,"), uint8(0), []byte("x"))
	unwrap, err := LegacyAESUnwrap([]byte("abcdefghijklmnop"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, level, typ, key []byte, flags uint8, page []byte) {
		p := LegacyProperties{
			Level: level, Type: typ, Key: key,
			HasLevel: flags&1 != 0, HasType: flags&2 != 0, HasKey: flags&4 != 0,
		}
		var hook LegacyUnwrapFunc
		switch flags >> 3 & 3 {
		case 1:
			hook = unwrap
		case 2:
			hook = func(w []byte) ([]byte, error) { return w[:len(w)/2], nil }
		case 3:
			hook = func([]byte) ([]byte, error) { return nil, errors.New("no") }
		}
		s, err := ParseLegacy(p, hook)
		if err != nil {
			if s != nil {
				t.Fatal("non-nil scheme with error")
			}
			if !errors.Is(err, ErrLegacyKey) && !errors.Is(err, ErrLegacyProperties) && !errors.Is(err, ErrUnsupportedCipher) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		if s == nil {
			return
		}
		defer s.Close()
		if s.Level != 1 && s.Level != 2 {
			t.Fatalf("Level = %d", s.Level)
		}
		ct, err := s.Encrypt(nil, page)
		if err != nil || len(ct) != len(page) {
			t.Fatalf("Encrypt: %d bytes, %v", len(ct), err)
		}
		pt, err := s.Decrypt(nil, ct)
		if err != nil || !bytes.Equal(pt, page) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}
