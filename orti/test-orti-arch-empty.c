/* test-orti-arch-empty.c — compiled per -mcpu for test-orti-arch: only its build attributes
 * matter. */
int orti_arch_marker;
