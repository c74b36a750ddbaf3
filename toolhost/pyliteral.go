package toolhost

// pythonLiteralJSON rewrites a Python-style literal that a text-format
// model wrote for an array or object parameter as JSON: single-quoted
// strings become double-quoted, and True, False and None outside strings
// become true, false and null. Qwen3-Coder writes its parameter values as
// raw text and often in Python's own syntax,
//
//	<parameter=items>
//	['milk', "eggs", 'it\'s']
//	</parameter>
//
// which vLLM's qwen3coder parser reads with ast.literal_eval when
// json.loads fails. Like the detectors' JSON repair it fixes form only: a
// string left unclosed is refused, never closed. ok is false when there
// was nothing to rewrite or the text cannot be rewritten.
func pythonLiteralJSON(s string) (out []byte, ok bool) {
	b := make([]byte, 0, len(s)+8)
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			j, closed := stringEnd(s, i, '"')
			if !closed {
				return nil, false
			}
			b = append(b, s[i:j+1]...)
			i = j
		case c == '\'':
			j, closed := stringEnd(s, i, '\'')
			if !closed {
				return nil, false
			}
			b = append(b, '"')
			for k := i + 1; k < j; k++ {
				switch {
				case s[k] == '\\' && s[k+1] == '\'':
					b = append(b, '\'')
					k++
				case s[k] == '\\':
					b = append(b, s[k], s[k+1])
					k++
				case s[k] == '"':
					b = append(b, '\\', '"')
				default:
					b = append(b, s[k])
				}
			}
			b = append(b, '"')
			i, changed = j, true
		case isWordStart(s, i):
			w := wordAt(s, i)
			if lit, ok := pyConstants[w]; ok {
				b, changed = append(b, lit...), true
			} else {
				b = append(b, w...)
			}
			i += len(w) - 1
		default:
			b = append(b, c)
		}
	}
	return b, changed
}

var pyConstants = map[string]string{"True": "true", "False": "false", "None": "null"}

// stringEnd returns the index of the quote q closing the string opened at
// s[i], skipping backslash escapes.
func stringEnd(s string, i int, q byte) (int, bool) {
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k, true
		}
	}
	return 0, false
}

func isIdent(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isWordStart reports an identifier starting at s[i].
func isWordStart(s string, i int) bool {
	return isIdent(s[i]) && (i == 0 || !isIdent(s[i-1]))
}

func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isIdent(s[j]) {
		j++
	}
	return s[i:j]
}
