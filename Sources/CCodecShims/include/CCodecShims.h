#ifndef PIXELFLOW_CCODECSHIMS_H
#define PIXELFLOW_CCODECSHIMS_H
int pf_codec_shims_version(void);
#endif
