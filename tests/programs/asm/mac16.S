#include "common.h"
	.data
	.align	4
mdata:	.word	0x00030004, 0xfffe7fff, 0x80010002, 0x12345678, 0x7fff8000, 0x0000ffff, 0xdeadbeef, 0x00010001
	BEGIN_MAIN
	LI	a2, 0x7fff8001
	LI	a3, 0xffff0003
	.irp	h, ll, hl, lh, hh
	umul.aa.\h a2, a3
	mul.aa.\h a2, a3
	mula.aa.\h a3, a2
	muls.aa.\h a2, a2
	.endr
	rsr.acclo a4
	rsr.acchi a5
	LI	a6, mdata
	ldinc	m0, a6
	ldinc	m1, a6
	ldinc	m2, a6
	lddec	m3, a6
	.irp	h, ll, hl, lh, hh
	mul.ad.\h a2, m2
	mula.ad.\h a3, m3
	muls.ad.\h a2, m3
	mul.da.\h m0, a3
	mula.da.\h m1, a2
	muls.da.\h m0, a2
	mul.dd.\h m1, m2
	mula.dd.\h m0, m3
	muls.dd.\h m1, m2
	.endr
	rsr.acclo a7
	rsr.acchi a8
	LI	a6, mdata + 8
	.irp	h, ll, hl, lh, hh
	mula.da.\h\().ldinc m0, a6, m1, a3
	mula.da.\h\().lddec m1, a6, m0, a2
	mula.dd.\h\().ldinc m2, a6, m1, m3
	mula.dd.\h\().lddec m3, a6, m0, m2
	.endr
	rsr.acclo a9
	rsr.acchi a10
	rsr.m0	a11
	rsr.m1	a12
	rsr.m2	a13
	rsr.m3	a14
	LI	a15, 0x180
	wsr.acchi a15
	rsr.acchi a15
	wsr.acclo a2
	xsr.acclo a3
	xsr.acchi a3
	wsr.m0	a2
	xsr.m1	a2
	wsr.m2	a3
	xsr.m3	a3
	END_MAIN
