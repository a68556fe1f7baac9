package bus

// The fuzzed buses of FuzzRunScenario, for the view tests of package
// bus_test.
var (
	ScenarioFromBytes = scenarioFromBytes
	ScenarioSeeds     = scenarioSeeds
)
