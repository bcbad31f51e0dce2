package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var csvSeeds = []string{
	"id,day,n\n1,2024-05-01,5\n",
	"\ufeffid;day;n\r\n1;2024-05-01;5\r\n",
	"id,day,n\n1,2024-05-01,5\n2,2024-05-01\n3,2024-05-01,30,99\n",
	"id,day,n\n1,2024-05-01,\"10\n2,2024-05-01,20\n",
	"id,name\n1,\"say \"\"hi\"\"\"\n2,a \"b\" c\n",
	"id,name\n1,\"multi\nline\"\n",
	"id\tday\n1\t2024-13-45\n",
	"a|b\n\xff\xfe|x\n",
	"id,n\n1,3000000000\n2,-32769\n3,1.5\n4,\n",
	"This is a prose file, not a CSV.\nIt has two lines.\n",
	"",
	"\"",
	"\"x;y\",b,c\n",
}

// FuzzCSV checks the CSV header and structure handling on any bytes: the
// delimiter is one of the candidates; a header has no byte order mark; a
// fault is reported with the file and a line that exists; a file
// CheckCSV passes (and has no quote, which it reads leniently) reads
// strictly with the header's field count, all UTF-8; CheckValues never
// passes a value CheckValue refuses.
func FuzzCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	lineRE := regexp.MustCompile(`^ line (\d+)[:,]`)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		delim, err := CSVDelimiter(p)
		if err != nil {
			t.Fatalf("CSVDelimiter: %v", err)
		}
		if !strings.ContainsRune(csvDelimiterCandidates, rune(delim)) {
			t.Fatalf("delimiter %q is not a candidate", delim)
		}
		header, herr := CSVHeader(p, delim)
		if herr == nil && len(header) > 0 && strings.HasPrefix(header[0], "\ufeff") {
			t.Fatalf("header %q keeps the byte order mark", header)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		located := func(what string, err error) {
			t.Helper()
			msg, ok := strings.CutPrefix(err.Error(), p)
			if !ok {
				t.Fatalf("%s: %q does not start with the file", what, err)
			}
			if m := lineRE.FindStringSubmatch(msg); m != nil {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
					t.Fatalf("%s: line %d of a file of %d lines: %v", what, n, lines, err)
				}
			} else if !strings.HasPrefix(msg, " is empty") {
				t.Fatalf("%s: %q names no line", what, err)
			}
		}
		cerr := CheckCSV(p, delim)
		if cerr != nil {
			located("CheckCSV", cerr)
		} else if len(data) > 0 && !bytes.ContainsRune(data, '"') {
			r := csv.NewReader(bytes.NewReader(data))
			r.Comma = rune(delim)
			for {
				rec, err := r.Read()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("CheckCSV passed a file a strict reader refuses: %v", err)
				}
				for _, v := range rec {
					if !utf8.ValidString(v) {
						t.Fatalf("CheckCSV passed a field that is not UTF-8: %q", v)
					}
				}
			}
		}
		if herr != nil || len(header) == 0 {
			return
		}
		for _, k := range []Kind{KindInt16, KindInt32, KindInt64, KindDate, KindTimestamp} {
			kinds := map[string]Kind{}
			for _, h := range header {
				kinds[h] = k
			}
			if err := CheckValues(p, delim, kinds); err != nil {
				located("CheckValues", err)
			}
			bad, good, err := CheckColumn(p, delim, header[0], k)
			if err != nil || good < 0 {
				t.Fatalf("CheckColumn: %v, %d", err, good)
			}
			if bad != nil {
				located("CheckColumn", bad)
			}
		}
	})
}

// FuzzCheckValue checks that the kinds nest (a value a SMALLINT takes an
// INTEGER takes, and so on; a date is a timestamp) and that integers are
// exactly what strconv reads in range.
func FuzzCheckValue(f *testing.F) {
	for _, s := range []string{"0", "-32768", "32768", "2147483648", "9223372036854775808", " 7 ", "1.5", "+1", "0x10",
		"2024-05-01", "2024-13-45", "2024-02-30", "2024-05-01 10:00:00", "2024-05-01T10:00:00.123456+02:00", "2024-05-01 10:00:00Z",
		"2024-05-01 10:00:00 UTC", "", "١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := func(k Kind) bool { return CheckValue(s, k) == nil }
		if ok(KindInt16) && !ok(KindInt32) || ok(KindInt32) && !ok(KindInt64) {
			t.Fatalf("%q: integer kinds do not nest", s)
		}
		if ok(KindDate) && !ok(KindTimestamp) {
			t.Fatalf("%q is a date but not a timestamp", s)
		}
		_, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if ok(KindInt64) != (err == nil) {
			t.Fatalf("%q: CheckValue says %v, strconv says %v", s, CheckValue(s, KindInt64), err)
		}
		if CheckValue(s, KindOther) != nil {
			t.Fatalf("%q: KindOther refuses a value", s)
		}
	})
}
