"""What the running command has done so far, for its last line: the outputs
renamed into place and the interrupts received. Plain lists in a module that
imports nothing, so the command line can reach them before the heavy imports."""

holding = False          # a commit is moving outputs into place: an interrupt is recorded, then raised after
committed: list = []     # outputs renamed into place since the command started (staging.StagedOutputs.commit)
interrupted: list = []   # numbers of the signals received (cli._interrupt): an interrupt that some library
                         # swallowed (numba's dispatcher clears errors) still stops the renames; the first
                         # one gives the exit code
