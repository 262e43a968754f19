package logparse

// Version is the version of SWE-bench's parser table here (parser names, repositories and
// each Dialect's options onto internal/testresults), recorded with every SWE-bench trial
// (TaskTrial status.provenance.parser, beside testresults.Version). Bump it with any change
// that can read the same log as another status of any test.
const Version = "2"
