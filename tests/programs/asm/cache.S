#include "common.h"
	.data
	.align	64
cbuf:	.space	256
	BEGIN_MAIN
	LI	a2, cbuf
	ipf	a2, 0
	ihi	a2, 64
	iii	a2, 0
	ipfl	a2, 0
	ihu	a2, 0
	iiu	a2, 0
	dpfr	a2, 0
	dpfw	a2, 4
	dpfro	a2, 8
	dpfwo	a2, 12
	dhwb	a2, 0
	dhwbi	a2, 64
	dhi	a2, 128
	dii	a2, 0
	diwb	a2, 0
	diwbi	a2, 16
	dpfl	a2, 0
	dhu	a2, 0
	diu	a2, 0
	END_MAIN
