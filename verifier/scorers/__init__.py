"""
Scorers: functions that compute quality scores from decoded media.

`audio.spectral_cosine` and `ssim.ssim_batch` need only numpy
(`ssim.reference_ssim_frame`, scikit-image's, is the tests' reference);
`lpips_alex` needs the optional `scoring` extra. Nothing here loads weights
or touches the network.
"""
