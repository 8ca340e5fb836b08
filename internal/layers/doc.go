// Package layers holds only a test: the import rules that keep roomlease's
// architecture what the README's layout says it is.
package layers
