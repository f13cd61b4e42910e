/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider of fiocamp-run (`[provider] type = netcup`): the
 * provider interface of provider.h on top of the SCP client of netcup.h.
 * See docs/netcup.md.
 */
#ifndef FCR_NETCUP_PUBLIC_H
#define FCR_NETCUP_PUBLIC_H

#include "provider.h"

extern const struct fcr_provider fcr_netcup_provider;

/* Where the refresh token lives unless [provider] or --token-file says
 * otherwise ("~" is the user's home directory). */
#define FCR_NETCUP_TOKEN_FILE_DEFAULT "~/.config/fiocamp/netcup.token"

/* `fiocamp-run netcup-login [--token-file PATH] [--auth-url URL]`: the
 * one-time device-code login.  argv[0] is "netcup-login".  Returns an exit
 * status. */
int fcr_netcup_login_command(int argc, char **argv);

#endif
