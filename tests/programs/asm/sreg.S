#include "common.h"
	/* RSR/WSR/XSR of the plain special registers, user registers, RSIL and RFI/RFE/RFDE. */
	BEGIN_MAIN
	LI	a2, 0xa5a5f00d
	.irp	r, excsave1, excsave2, excsave3, excsave4, excsave5, excsave6, excsave7, epc1, epc2, epc3, epc4, epc5, epc6, epc7, depc, excvaddr, misc0, misc1, scompare1, ibreaka0, ibreaka1, dbreaka0, dbreaka1, ddr
	wsr.\r	a2
	rsr.\r	a3
	addi	a2, a2, 3
	xsr.\r	a2
	.endr
	.irp	r, eps2, eps3, eps4, eps5, eps6, eps7
	wsr.\r	a2
	rsr.\r	a3
	xsr.\r	a3
	.endr
	.irp	r, litbase, atomctl, cpenable, exccause, icountlevel, dbreakc0, dbreakc1, ibreakenable, vecbase, intenable
	rsr.\r	a4
	wsr.\r	a2
	rsr.\r	a5
	xsr.\r	a4
	.endr
	rsr.prid a6
	rsr.176	a7
	rsr.208	a8
	rsr.interrupt a9
	movi	a10, 0
	wsr.intset a10
	wsr.intclear a10
	rsr.ps	a11
	rsil	a12, 3
	rsil	a12, 0
	xsr.ps	a11
	wsr.ps	a11
	LI	a13, 0x1234
	wur.threadptr a13
	rur.threadptr a14
	wur.expstate a13
	rur.expstate a15
	setb_expstate 5
	clrb_expstate 2
	movi	a6, 0xff
	wrmsk_expstate a13, a6
	rur.expstate a7
	read_impwire a8
	/* RFE: return to .Lrfe with PS.EXCM set first */
	LI	a9, .Lrfe
	wsr.epc1 a9
	rsr.ps	a10
	movi	a11, 0x10
	or	a11, a10, a11
	wsr.ps	a11
	rsync
	rfe
	ill
.Lrfe:	/* RFDE: returns to DEPC, PS unchanged */
	LI	a9, .Lrfde
	wsr.depc a9
	rfde
	ill
.Lrfde:	/* RFI 2: PS <- EPS2, PC <- EPC2 */
	LI	a9, .Lrfi
	wsr.epc2 a9
	wsr.eps2 a10
	rfi	2
	ill
.Lrfi:	rsr.ps	a12
	memw
	extw
	isync
	rsync
	esync
	dsync
	excw
	END_MAIN
