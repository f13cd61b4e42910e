/* SPDX-License-Identifier: MIT */
/* Allocation that never returns NULL, and the one fatal path behind it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char *program = "fiocamp";
static int fatal_status = 1;
static void (*fatal_hook)(const char *why);
static void *reserve;
static volatile int dying;

bool (*cm_alloc_fault)(size_t bytes);

void cm_init(const char *name, int status)
{
	program = name;
	fatal_status = status;
}

void cm_on_fatal(void (*hook)(const char *why), size_t reserve_bytes)
{
	fatal_hook = hook;
	free(reserve);
	reserve = reserve_bytes ? malloc(reserve_bytes) : NULL;
	/* touched, so that the pages are really there to give back */
	if (reserve)
		memset(reserve, 0, reserve_bytes);
}

_Noreturn void cm_die(const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", program, why);
	if (dying) {
		/* the hook itself failed: nothing more can be done */
		_exit(fatal_status);
	}
	dying = 1;
	free(reserve);
	reserve = NULL;
	if (fatal_hook)
		fatal_hook(why);
	exit(fatal_status);
}

static void *checked(void *p)
{
	if (!p)
		cm_die("out of memory");
	return p;
}

static bool fault(size_t bytes)
{
	return cm_alloc_fault && cm_alloc_fault(bytes);
}

void *cm_malloc(size_t bytes)
{
	return checked(fault(bytes) ? NULL : malloc(bytes ? bytes : 1));
}

void *cm_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		cm_die("out of memory");
	return checked(fault(n * size) ? NULL : calloc(n ? n : 1, size ? size : 1));
}

void *cm_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		cm_die("out of memory");
	size_t bytes = n * size;
	return checked(fault(bytes) ? NULL : realloc(p, bytes ? bytes : 1));
}

char *cm_strdup(const char *s)
{
	return cm_strndup(s, strlen(s));
}

char *cm_strndup(const char *s, size_t n)
{
	char *p = cm_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cm_vasprintf(const char *fmt, va_list ap)
{
	char *p = NULL;
	if (fault(0) || vasprintf(&p, fmt, ap) < 0)
		cm_die("out of memory");
	return p;
}

char *cm_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = cm_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void *cm_push(void *array_ptr, size_t *n, size_t *cap, size_t size)
{
	void **arr = array_ptr;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*arr = cm_realloc(*arr, *cap, size);
	}
	void *e = (char *)*arr + *n * size;
	memset(e, 0, size);
	(*n)++;
	return e;
}
