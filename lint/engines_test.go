package lint

// Job files name engines by URL scheme; the real engines are not linked here.
import _ "github.com/idemdata/idem/internal/enginestub"
