/* SPDX-License-Identifier: GPL-2.0-only */
/* Bounded printf-style formatting for printk (pure; host unit-tested). */

#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * Written from the C11 description of fprintf (7.21.6.1), limited to
 * what a kernel needs: no floating point, no %n, no wide characters.
 * Output is always NUL-terminated when size > 0 and never runs past
 * buf + size; the return value is the untruncated length, as in C.
 */

#define F_LEFT   0x01
#define F_PLUS   0x02
#define F_SPACE  0x04
#define F_ALT    0x08
#define F_ZERO   0x10
#define F_UPPER  0x20

struct out
{
    char *buf;
    size_t size;
    size_t len;
};

static void put(struct out *o, char c)
{
    if ( o->len + 1 < o->size )
        o->buf[o->len] = c;
    o->len++;
}

static void pad(struct out *o, char c, int n)
{
    while ( n-- > 0 )
        put(o, c);
}

static void put_str(struct out *o, const char *s, int width, int prec,
                    unsigned int flags)
{
    size_t n;

    if ( !s )
        s = "(null)";
    n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
    if ( !(flags & F_LEFT) )
        pad(o, ' ', width - (int)n);
    for ( size_t i = 0; i < n; i++ )
        put(o, s[i]);
    if ( flags & F_LEFT )
        pad(o, ' ', width - (int)n);
}

static void put_num(struct out *o, unsigned long long v, bool negative,
                    unsigned int base, int width, int prec,
                    unsigned int flags)
{
    const char *digits = (flags & F_UPPER) ? "0123456789ABCDEF"
                                           : "0123456789abcdef";
    char tmp[24];
    int n = 0, zeros, total;
    char sign = 0;
    const char *prefix = "";

    do
    {
        tmp[n++] = digits[v % base];
        v /= base;
    } while ( v );

    /* C: precision 0 with value 0 prints no digits. */
    if ( prec == 0 && n == 1 && tmp[0] == '0' )
        n = 0;

    if ( negative )
        sign = '-';
    else if ( flags & F_PLUS )
        sign = '+';
    else if ( flags & F_SPACE )
        sign = ' ';

    if ( (flags & F_ALT) && base == 16 && n && !(n == 1 && tmp[0] == '0') )
        prefix = (flags & F_UPPER) ? "0X" : "0x";
    /* '#' with o raises the precision only as far as one leading 0. */
    else if ( (flags & F_ALT) && base == 8 && prec <= n &&
              (n == 0 || tmp[n - 1] != '0') )
        prefix = "0";

    zeros = prec > n ? prec - n : 0;
    total = n + zeros + (sign ? 1 : 0) + (int)strlen(prefix);

    /* The 0 flag is ignored with a precision or with '-'. */
    if ( (flags & F_ZERO) && prec < 0 && !(flags & F_LEFT) && width > total )
    {
        zeros += width - total;
        total = width;
    }

    if ( !(flags & F_LEFT) )
        pad(o, ' ', width - total);
    if ( sign )
        put(o, sign);
    for ( const char *p = prefix; *p; p++ )
        put(o, *p);
    pad(o, '0', zeros);
    while ( n )
        put(o, tmp[--n]);
    if ( flags & F_LEFT )
        pad(o, ' ', width - total);
}

enum length
{
    LEN_INT,
    LEN_CHAR,
    LEN_SHORT,
    LEN_LONG,
    LEN_LLONG,
    LEN_SIZE,
    LEN_PTRDIFF,
    LEN_MAX,
};

static int parse_int(const char **fmt)
{
    int v = 0;

    while ( **fmt >= '0' && **fmt <= '9' )
    {
        if ( v < 100000 )
            v = v * 10 + (**fmt - '0');
        (*fmt)++;
    }
    return v;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { .buf = buf, .size = size, .len = 0 };

    for ( ; *fmt; fmt++ )
    {
        unsigned int flags = 0, base = 10;
        int width = -1, prec = -1;
        enum length len = LEN_INT;
        unsigned long long uv;
        long long sv;
        bool is_signed = false;

        if ( *fmt != '%' )
        {
            put(&o, *fmt);
            continue;
        }
        fmt++;

        for ( ;; fmt++ )
        {
            if ( *fmt == '-' )
                flags |= F_LEFT;
            else if ( *fmt == '+' )
                flags |= F_PLUS;
            else if ( *fmt == ' ' )
                flags |= F_SPACE;
            else if ( *fmt == '#' )
                flags |= F_ALT;
            else if ( *fmt == '0' )
                flags |= F_ZERO;
            else
                break;
        }

        if ( *fmt == '*' )
        {
            width = va_arg(ap, int);
            if ( width < 0 )
            {
                flags |= F_LEFT;
                /* -INT_MIN overflows; no real width is that wide. */
                width = width < -100000 ? 100000 : -width;
            }
            fmt++;
        }
        else if ( *fmt >= '0' && *fmt <= '9' )
            width = parse_int(&fmt);

        if ( *fmt == '.' )
        {
            fmt++;
            if ( *fmt == '*' )
            {
                prec = va_arg(ap, int);
                if ( prec < 0 )
                    prec = -1;
                fmt++;
            }
            else
                prec = parse_int(&fmt);
        }

        switch ( *fmt )
        {
        case 'h':
            len = LEN_SHORT;
            if ( fmt[1] == 'h' )
            {
                len = LEN_CHAR;
                fmt++;
            }
            fmt++;
            break;
        case 'l':
            len = LEN_LONG;
            if ( fmt[1] == 'l' )
            {
                len = LEN_LLONG;
                fmt++;
            }
            fmt++;
            break;
        case 'z':
            len = LEN_SIZE;
            fmt++;
            break;
        case 't':
            len = LEN_PTRDIFF;
            fmt++;
            break;
        case 'j':
            len = LEN_MAX;
            fmt++;
            break;
        }

        switch ( *fmt )
        {
        case '\0':
            /* A lone '%' at the end: print it rather than read past. */
            put(&o, '%');
            fmt--;
            continue;
        case '%':
            put(&o, '%');
            continue;
        case 'c':
        {
            char c = (char)va_arg(ap, int);

            if ( !(flags & F_LEFT) )
                pad(&o, ' ', width - 1);
            put(&o, c);
            if ( flags & F_LEFT )
                pad(&o, ' ', width - 1);
            continue;
        }
        case 's':
            put_str(&o, va_arg(ap, const char *), width, prec, flags);
            continue;
        case 'p':
            put_num(&o, (uintptr_t)va_arg(ap, void *), false, 16, width,
                    prec, flags | F_ALT);
            continue;
        case 'd':
        case 'i':
            is_signed = true;
            break;
        case 'u':
            break;
        case 'X':
            flags |= F_UPPER;
            /* fall through */
        case 'x':
            base = 16;
            break;
        case 'o':
            base = 8;
            break;
        default:
            /* Unknown conversion: show it verbatim, consume nothing. */
            put(&o, '%');
            put(&o, *fmt);
            continue;
        }

        if ( is_signed )
        {
            switch ( len )
            {
            case LEN_CHAR:    sv = (signed char)va_arg(ap, int); break;
            case LEN_SHORT:   sv = (short)va_arg(ap, int); break;
            case LEN_LONG:    sv = va_arg(ap, long); break;
            case LEN_LLONG:   sv = va_arg(ap, long long); break;
            case LEN_SIZE:    sv = va_arg(ap, ssize_t); break;
            case LEN_PTRDIFF: sv = va_arg(ap, ptrdiff_t); break;
            case LEN_MAX:     sv = va_arg(ap, intmax_t); break;
            default:          sv = va_arg(ap, int); break;
            }
            uv = sv < 0 ? -(unsigned long long)sv : (unsigned long long)sv;
            put_num(&o, uv, sv < 0, base, width, prec, flags);
        }
        else
        {
            switch ( len )
            {
            case LEN_CHAR:    uv = (unsigned char)va_arg(ap, unsigned int);
                              break;
            case LEN_SHORT:   uv = (unsigned short)va_arg(ap, unsigned int);
                              break;
            case LEN_LONG:    uv = va_arg(ap, unsigned long); break;
            case LEN_LLONG:   uv = va_arg(ap, unsigned long long); break;
            case LEN_SIZE:    uv = va_arg(ap, size_t); break;
            case LEN_PTRDIFF: uv = (unsigned long long)va_arg(ap, ptrdiff_t);
                              break;
            case LEN_MAX:     uv = va_arg(ap, uintmax_t); break;
            default:          uv = va_arg(ap, unsigned int); break;
            }
            put_num(&o, uv, false, base, width, prec,
                    flags & ~(F_PLUS | F_SPACE));
        }
    }

    if ( size )
        buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len > (size_t)INT32_MAX ? INT32_MAX : (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
