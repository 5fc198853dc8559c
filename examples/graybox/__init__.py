"""Small mechanisms with planted bugs of the shapes the gray-box stage reads, each beside its
correct twin, for ``python -m dpaudit audit examples.graybox.MODULE:OBJECT``.

dpaudit did not write these; each docstring says what is wrong and why. The stage names the
line of the noise draw (or of the branch) and the shift against the scale:

======================  =======================================  ===============================
module                  planted bug                              what the stage reports
======================  =======================================  ===============================
``scale_from_len``      noise scale read from ``len(data)``       the scale differs on D and D'
``unclipped_sum``       clips a copy, sums the original           exact loss above the claim,
                                                                   at the draw's line
``two_releases``        releases the sum twice at the full eps    exact loss 2 eps
``private_branch``      returns the noisy sum or the raw max,     a branch on the data decides
                        by a comparison of the raw sum            differently on D and D'
``python_random``       Gaussian noise from ``random.gauss``      exact loss above the claim
                        with sigma for sensitivity 1, query 2
``class_counts``        one noisy count per class found in        the number of draws and the
                        the data                                  output's length depend on D
======================  =======================================  ===============================
"""
