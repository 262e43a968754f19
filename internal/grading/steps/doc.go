// Package steps holds the building blocks graders compose in their own order: apply a patch
// (git apply, or the four-method fallback script), put back or remove the test files a patch
// touched, run a suite under a timeout as a process tree, write the result files, and guard a
// grading run. Each block is small and tested on its own so that it can be reordered or
// hardened without touching the graders that use it.
package steps
