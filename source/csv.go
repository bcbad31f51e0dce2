package source

import (
	"bufio"
	"os"
)

// csvDelimiterCandidates are the delimiters CSVDelimiter chooses among.
const csvDelimiterCandidates = ",;\t|"

// CSVDelimiter reads a CSV file's header line and returns the delimiter it
// uses: the candidate (comma, semicolon, tab, pipe) found most often outside
// quotes, a comma on a tie or when none occurs (a one-column file). The
// header decides, not a sample of data rows: a reader that guesses from the
// rows can take a ragged file for a one-column file with another delimiter.
func CSVDelimiter(path string) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	counts := map[byte]int{}
	inQuote := false
	for {
		b, err := r.ReadByte()
		if err != nil {
			break
		}
		if b == '"' {
			inQuote = !inQuote
			continue
		}
		if !inQuote && (b == '\n' || b == '\r') {
			break
		}
		if !inQuote {
			counts[b]++
		}
	}
	best := byte(',')
	for i := 0; i < len(csvDelimiterCandidates); i++ {
		c := csvDelimiterCandidates[i]
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best, nil
}
