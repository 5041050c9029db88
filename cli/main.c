/* main.c - polc's entry point; everything else is in the library. */
#include "cli.h"

int main(int argc, char **argv)
{
	return polc_main(argc, argv);
}
