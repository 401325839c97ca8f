/* isa-tour: a small windowed-ABI program for the ncore2gp profile (CALL0/CALL8 only), used by
 * `q7emu disasm` as the committed example image. Assemble and link:
 *   xtensa-elf-as tour.S -o tour.o && xtensa-elf-ld -Ttext=0x84000000 -e _start tour.o -o tour.elf
 * (tests/prebuilt_examples.rs rebuilds it and requires byte-identical output). */
	.text
	.literal_position
	.global	_start
	.type	_start, @function
	.align	4
_start:
	entry	a1, 32
	movi	a2, table
	movi	a3, 16
	call8	sum_words		/* a10 = sum of 16 words */
	mov	a2, a10
	movi	a3, 0x12345678
	extui	a4, a3, 4, 12
	nsau	a5, a4
	min	a6, a4, a5
	sext	a7, a3, 15
	quou	a8, a3, a4
	loop	a5, 1f
	addi	a2, a2, 1
1:	retw
	.size	_start, . - _start

	.global	sum_words
	.type	sum_words, @function
	.align	4
sum_words:				/* a2 = words, a3 = count; returns the sum */
	entry	a1, 32
	movi	a4, 0
	beqz	a3, 2f
	loopnez	a3, 2f
	l32i	a5, a2, 0
	add	a4, a4, a5
	addi	a2, a2, 4
2:	mov	a2, a4
	retw
	.size	sum_words, . - sum_words

	.data
	.align	4
table:	.word	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
