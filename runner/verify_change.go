package runner

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/internal/scratch"
	"github.com/idemdata/idem/job"
)

// maxScanned bounds how many input rows the change-one-row check reads
// looking for a row that reached the table.
const maxScanned = 1_000_000

// ChangeSkipped is a ChangeCheck verdict: the check could not be made.
const ChangeSkipped = "skipped"

// changeOneRow changes one field of one input row in a copy of the input,
// runs the job on the copy, and checks that only the rows of that key (or,
// without a key, that one row) differ from baseline, the table of the run
// on the unchanged input.
func (v *verifier) changeOneRow(ctx context.Context, rep *VerifyReport, baseline engine.Table) error {
	ch := rep.Change
	files, note, err := v.changeInput(ctx, baseline)
	if err != nil {
		return err
	}
	var pick *picked
	var cols []engine.Column
	if note == "" {
		pick, cols, note, err = v.pickRow(ctx, baseline, files)
		if err != nil {
			return err
		}
	}
	if note != "" {
		ch.Verdict, ch.Note = ChangeSkipped, note
		return nil
	}
	rel, _ := filepath.Rel(v.job.Dir, pick.file)
	ch.File, ch.Line, ch.Column, ch.From, ch.To = rel, pick.line, pick.column, pick.from, pick.to
	if len(v.job.Key) > 0 {
		ch.Key = pick.key
	}
	changed, err := v.runChanged(ctx, rep, files, pick)
	if err != nil {
		return err
	}
	gone, err := v.keyedDiff(ctx, baseline, changed, cols)
	if err != nil {
		return err
	}
	added, err := v.keyedDiff(ctx, changed, baseline, cols)
	if err != nil {
		return err
	}
	judgeChange(ch, gone, added, len(v.job.Key) > 0, pick.key)
	return nil
}

// changeInput is the input files the check would rewrite, or a note saying
// why the check cannot be made.
func (v *verifier) changeInput(ctx context.Context, baseline engine.Table) (files []string, note string, err error) {
	j := v.job
	if j.Source.Format == "parquet" {
		return nil, "Parquet input is not rewritten; the change-one-row check applies to CSV and JSON Lines", nil
	}
	if ok, err := v.exists(ctx, baseline); err != nil || !ok {
		if err != nil {
			return nil, "", err
		}
		return nil, "the input loaded no rows", nil
	}
	files, err = v.inputFiles()
	if err != nil {
		return nil, "", err
	}
	for _, f := range files {
		if rel, err := filepath.Rel(j.Dir, f); err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Sprintf("input %s lies outside the job's folder, so the job cannot be pointed at a copy", f), nil
		}
	}
	return files, "", nil
}

// pickRow finds the input row to change, one that reached baseline by its
// key (or partition value) as the database prints it, and baseline's data
// columns; or a note saying why there is none.
func (v *verifier) pickRow(ctx context.Context, baseline engine.Table, files []string) (*picked, []engine.Column, string, error) {
	j := v.job
	match := slices.Clone([]string(j.Key))
	if len(match) == 0 {
		match = []string{j.Partition.Column}
	}
	present, err := v.present(ctx, baseline, match)
	if err != nil {
		return nil, nil, "", err
	}
	protect := append(slices.Clone(match), j.Partition.Column, j.VersionColumn(), j.DeleteWhen, j.LoadedAt)
	cols, err := v.dataCols(ctx, baseline)
	if err != nil {
		return nil, nil, "", err
	}
	types := map[string]string{}
	for _, c := range cols {
		types[c.Name] = strings.ToUpper(c.Type)
	}
	pick, err := findRow(files, j.Source.Format, match, protect, types, present)
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	if pick == nil {
		return nil, nil, "no input row among the first " + strconv.Itoa(maxScanned) + " could be matched to a row of the table (by its " + strings.Join(match, ", ") + " as the database prints it)", nil
	}
	return pick, cols, "", nil
}

// runChanged runs the job on a copy of its input with pick's row changed
// (in a temporary folder, removed after), and returns the table it wrote.
func (v *verifier) runChanged(ctx context.Context, rep *VerifyReport, files []string, pick *picked) (engine.Table, error) {
	tmp, err := scratch.New("idem-verify-")
	if err != nil {
		return engine.Table{}, err
	}
	defer os.RemoveAll(tmp)
	if err := copyInput(v.job.Dir, tmp, files, pick); err != nil {
		return engine.Table{}, fmt.Errorf("copying the input for the change-one-row check: %w", err)
	}
	jc := *v.job
	jc.Dir = tmp
	changed, force := v.table("a"), true
	if v.job.Strategy == job.StrategyMerge {
		// A fresh table: in a merge the changed row would have to beat
		// the row already there, which is the row order's business.
		changed, force = v.table("c"), false
	}
	if _, err := v.run(ctx, rep, &jc, changed, force); err != nil {
		rel, _ := filepath.Rel(v.job.Dir, pick.file)
		return changed, fmt.Errorf("the run on the input with one row changed (%s line %d, %s): %w", rel, pick.line, pick.column, err)
	}
	return changed, nil
}

// copyInput copies files from folder dir to the same places under folder
// to, pick's file with its row changed.
func copyInput(dir, to string, files []string, pick *picked) error {
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		dst := filepath.Join(to, rel)
		var err error
		if f == pick.file {
			err = writeChanged(f, dst, pick)
		} else {
			err = copyFile(f, dst)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// judgeChange records in ch the rows the change removed and added (at most
// maxListed each) and the verdict: at most one row each way, and, with a
// key, only rows of the changed row's key.
func judgeChange(ch *ChangeCheck, gone, added []keyedRow, keyed bool, key string) {
	ch.Verdict = VerdictPass
	bad := len(gone) > 1 || len(added) > 1
	for _, r := range append(slices.Clone(gone), added...) {
		if keyed && r.key != key {
			bad = true
		}
	}
	for i, r := range gone {
		if i < maxListed {
			ch.Removed = append(ch.Removed, r.row)
		}
	}
	for i, r := range added {
		if i < maxListed {
			ch.Added = append(ch.Added, r.row)
		}
	}
	if bad {
		ch.Verdict = VerdictFail
	}
	if len(gone)+len(added) == 0 {
		ch.Note = "the changed row did not change the table (it lost to another row of its key)"
	}
}

// inputFiles are the files the run's partitions read, each once.
func (v *verifier) inputFiles() ([]string, error) {
	ws, err := v.job.Windows(v.opts.Date)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range ws {
		globs := make([]string, len(v.job.Source.Files))
		for i, f := range v.job.Source.Files {
			globs[i] = job.RenderPath(f, w)
		}
		fs, err := input.List(v.job.Dir, globs)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// present maps the values of cols in table t, as text joined by \x1f, to
// the same values as keyText prints them.
func (v *verifier) present(ctx context.Context, t engine.Table, cols []string) (map[string]string, error) {
	rows, err := v.s.QueryContext(ctx, v.d.Diff.Distinct(t, cols))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		raw, shown := make([]string, len(cols)), make([]string, len(cols))
		for i, s := range vals {
			raw[i] = s.String
			shown[i] = cols[i] + "=" + s.String
		}
		out[strings.Join(raw, "\x1f")] = strings.Join(shown, ", ")
	}
	return out, rows.Err()
}

type keyedRow struct{ key, row string }

// keyedDiff lists the rows (as a multiset) f has and g lacks, with their
// key text, at most maxListed*100.
func (v *verifier) keyedDiff(ctx context.Context, f, g engine.Table, cols []engine.Column) ([]keyedRow, error) {
	rows, err := v.s.QueryContext(ctx, v.d.Diff.RowDiff(f, g, v.job.Key, names(cols), maxListed*100))
	if err != nil {
		return nil, fmt.Errorf("comparing rows: %w", err)
	}
	defer rows.Close()
	var out []keyedRow
	for rows.Next() {
		var r keyedRow
		if err := rows.Scan(&r.key, &r.row); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// picked is the input row the check changes.
type picked struct {
	file       string
	line       int
	start, end int64 // the row's bytes in the file
	column     string
	from, to   string
	key        string // as keyText prints it
	// csv: the record with the field changed; jsonl: the new line.
	record []string
	delim  rune
	json   []byte
}

// findRow finds the first input row whose match columns hold values
// present in the table, and a column of it to change that is none of
// protect, with a value that can be changed without changing its type.
func findRow(files []string, format string, match, protect []string, types, present map[string]string) (*picked, error) {
	scanned := 0
	for _, f := range files {
		var p *picked
		var err error
		if format == "jsonl" {
			p, err = findJSONL(f, match, protect, types, present, &scanned)
		} else {
			p, err = findCSV(f, match, protect, types, present, &scanned)
		}
		if err != nil || p != nil || scanned >= maxScanned {
			return p, err
		}
	}
	return nil, nil
}

func findCSV(path string, match, protect []string, types, present map[string]string, scanned *int) (*picked, error) {
	delim, err := input.Delimiter(path)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(bufio.NewReader(fh))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	idx := make([]int, len(match))
	for i, m := range match {
		if idx[i] = slices.Index(header, m); idx[i] < 0 {
			return nil, fmt.Errorf("%s has no column %s to find a row by", path, m)
		}
	}
	for *scanned < maxScanned {
		start := r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		*scanned++
		if p := pickCSV(header, rec, idx, protect, types, present); p != nil {
			p.line, _ = r.FieldPos(0)
			p.file, p.start, p.end, p.delim = path, start, r.InputOffset(), rune(delim)
			return p, nil
		}
	}
	return nil, nil
}

// pickCSV is record rec, changed, when its fields at idx (the match
// columns) hold values present in the table and a field can be changed;
// otherwise nil. The caller fills in where the record lies.
func pickCSV(header, rec []string, idx []int, protect []string, types, present map[string]string) *picked {
	vals := make([]string, len(idx))
	for i, x := range idx {
		if x < len(rec) {
			vals[i] = rec[x]
		}
	}
	key, ok := present[strings.Join(vals, "\x1f")]
	if !ok {
		return nil
	}
	col, to := pickField(header, rec, protect, types)
	if col < 0 {
		return nil
	}
	out := slices.Clone(rec)
	out[col] = to
	return &picked{column: header[col], from: rec[col], to: to, key: key, record: out}
}

func findJSONL(path string, match, protect []string, types, present map[string]string, scanned *int) (*picked, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	br := bufio.NewReader(fh)
	var off int64
	line := 0
	for *scanned < maxScanned {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			return nil, nil
		}
		start := off
		off += int64(len(b))
		line++
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		*scanned++
		p, err := pickJSON(b, match, protect, types, present)
		if err != nil || p != nil {
			if p != nil {
				p.file, p.line, p.start, p.end = path, line, start, off
			}
			return p, err
		}
	}
	return nil, nil
}

// pickJSON is JSON line b, changed, when its match fields hold values
// present in the table and a field can be changed; otherwise nil (a line
// that is no JSON object too). The caller fills in where the line lies.
func pickJSON(b []byte, match, protect []string, types, present map[string]string) (*picked, error) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if dec.Decode(&obj) != nil {
		return nil, nil
	}
	vals := make([]string, len(match))
	for i, m := range match {
		vals[i] = jsonText(obj[m])
	}
	key, ok := present[strings.Join(vals, "\x1f")]
	if !ok {
		return nil, nil
	}
	names, texts := jsonFields(obj)
	col, to := pickField(names, texts, protect, types)
	if col < 0 {
		return nil, nil
	}
	newVal := json.RawMessage(to)
	if obj[names[col]][0] == '"' {
		q, _ := json.Marshal(to)
		newVal = q
	}
	obj[names[col]] = newVal
	nb, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return &picked{column: names[col], from: texts[col], to: to, key: key, json: append(nb, '\n')}, nil
}

// jsonFields are obj's field names, sorted, and their values as text;
// null, objects and lists are "", which pickField never changes.
func jsonFields(obj map[string]json.RawMessage) (names, texts []string) {
	names = make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	texts = make([]string, len(names))
	for i, n := range names {
		texts[i] = jsonText(obj[n])
		if len(obj[n]) > 0 && obj[n][0] != '"' && !numberRE.MatchString(texts[i]) && texts[i] != "true" && texts[i] != "false" {
			texts[i] = ""
		}
	}
	return names, texts
}

// jsonText is a JSON value as the database prints it: a string unquoted,
// anything else as written.
func jsonText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

var (
	numberRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	dateRE   = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`)
)

// pickField chooses the field of a row to change, and a new value that
// reads as the same type (types are the table's column types): text first
// (text + "~"), then a number (its integer part + 1) or a boolean
// (flipped), then a date or timestamp (its year + 4, which keeps 29
// February). Other types (JSON, UUID, intervals, lists) are left alone.
func pickField(names, vals []string, protect []string, types map[string]string) (int, string) {
	best, rank, to := -1, 9, ""
	for i, n := range names {
		if i >= len(vals) || slices.Contains(protect, n) || vals[i] == "" {
			continue
		}
		s, typ := vals[i], types[n]
		r, t := -1, ""
		has := func(parts ...string) bool {
			return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(typ, p) })
		}
		switch {
		case typ == "" || has("INTERVAL", "UUID", "JSON", "[]", "STRUCT", "MAP", "BLOB", "BYTEA"):
		case has("CHAR", "TEXT", "STRING"):
			r, t = 0, s+"~"
		case has("BOOL"):
			if s == "true" || s == "false" {
				r, t = 1, map[string]string{"true": "false", "false": "true"}[s]
			}
		case has("INT", "DEC", "NUM", "FLOAT", "DOUBLE", "REAL"):
			if numberRE.MatchString(s) {
				whole, frac, _ := strings.Cut(s, ".")
				if n, err := strconv.ParseInt(whole, 10, 64); err == nil {
					r, t = 1, strconv.FormatInt(n+1, 10)
					if frac != "" {
						t += "." + frac
					}
				}
			}
		case has("DATE", "TIMESTAMP"):
			if dateRE.MatchString(s) {
				y, _ := strconv.Atoi(s[:4])
				r, t = 2, fmt.Sprintf("%04d", y+4)+s[4:]
			}
		}
		if r >= 0 && r < rank {
			best, rank, to = i, r, t
		}
	}
	return best, to
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeChanged copies src to dst with the picked row's bytes replaced;
// every other byte stays as it was.
func writeChanged(src, dst string, p *picked) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	repl := p.json
	if p.record != nil {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Comma = p.delim
		// The row keeps the file's line ending: a reader may refuse a
		// file that mixes them.
		w.UseCRLF = bytes.HasSuffix(b[:p.end], []byte("\r\n"))
		if err := w.Write(p.record); err != nil {
			return err
		}
		w.Flush()
		repl = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out := append(append(slices.Clone(b[:p.start]), repl...), b[p.end:]...)
	return os.WriteFile(dst, out, 0o644)
}
