package checks

// DropTypedFrom sets the number of objects from which a run lets typed
// values go, so the tests take that path on small inputs, and returns a
// func that restores it.
func DropTypedFrom(n int) (restore func()) {
	old := dropTypedFrom
	dropTypedFrom = n
	return func() { dropTypedFrom = old }
}
