/* cli.h — the cdcharness command line: subcommand entry points and the
 * conventions they share.
 *
 * Owns: nothing. Each subcommand lives in its own cmd_<name>.c with one
 * entry point `int cmd_<name>(int argc, char **argv)` (argv[0] is the
 * subcommand name) returning the process exit status, and is listed in
 * main.c's table.
 */
#ifndef CDCH_CLI_H
#define CDCH_CLI_H

#define CDCH_VERSION "0.1.0"

/* Exit statuses shared by all subcommands. */
enum {
    CDCH_EXIT_OK = 0,
    CDCH_EXIT_BAD_INPUT = 1, /* malformed input, failed check, I/O error */
    CDCH_EXIT_USAGE = 2,     /* bad command line */
};

int cmd_decode(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_matrix(int argc, char **argv);

#endif
