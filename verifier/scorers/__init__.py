"""
Scorers: functions that compute quality scores from decoded media.

`audio.spectral_cosine` needs only numpy; `ssim.ssim_video` needs the
optional `scoring` extra (scikit-image). Nothing here loads weights or
touches the network.
"""
