package config

// Defaults returns the value of every setting a file leaves out. It is the one place a default
// is written: adapters take validated values and apply none of their own, and tests that build an
// adapter directly take its settings from here instead of restating them.
func Defaults() Config { return defaults() }
