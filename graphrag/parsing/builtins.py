"""Names every file of a language sees without declaring or importing them (Python's
builtins, JavaScript's globals, ``java.lang``, Kotlin's standard functions, Go's
predeclared functions, C#'s keywords and common ``System`` types, Scala's ``Predef``).
A call of one, or on one (``Math.max``, ``console.log``), names
something outside the repository: the resolver records such a site as ``external``
rather than as a name it could not find."""

from __future__ import annotations

import builtins
import re

_JS_NAMES = """
Array ArrayBuffer BigInt Boolean DataView Date Error EvalError Function Infinity Intl JSON
Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set
String Symbol SyntaxError TypeError URIError URL URLSearchParams WeakMap WeakSet
Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array
Float64Array TextEncoder TextDecoder AbortController console document window globalThis
process require module exports setTimeout clearTimeout setInterval clearInterval
setImmediate queueMicrotask structuredClone parseInt parseFloat isNaN isFinite
encodeURIComponent decodeURIComponent encodeURI decodeURI fetch Buffer atob btoa
"""

_JAVA_NAMES = """
String Object Math System Integer Long Double Float Short Byte Character Boolean Number
StringBuilder StringBuffer Thread Class Enum Objects Arrays Collections List Map Set
Optional Stream Collectors IllegalArgumentException IllegalStateException
RuntimeException Exception Error NullPointerException UnsupportedOperationException
IndexOutOfBoundsException Iterable Comparable CharSequence Runnable Void
"""

_KOTLIN_NAMES = """
println print listOf mutableListOf setOf mutableSetOf mapOf mutableMapOf arrayOf
emptyList emptyMap emptySet require requireNotNull check checkNotNull error lazy repeat
run let also apply with takeIf takeUnless TODO maxOf minOf buildString buildList
sequenceOf Pair Triple to
"""

_GO_NAMES = """
append cap clear close complex copy delete imag len make max min new panic print println
real recover string int int64 int32 float64 byte rune error bool uint uint64
"""

_CSHARP_NAMES = """
string object bool byte sbyte char decimal double float int uint long ulong short ushort
nint nuint dynamic nameof typeof sizeof String Object Boolean Byte Char Decimal Double
Single Int16 Int32 Int64 UInt16 UInt32 UInt64 Math Console Convert Guid DateTime
DateTimeOffset TimeSpan Nullable Enum Array Type Activator Environment GC Task ValueTask
Enumerable Queryable StringBuilder Encoding Exception ArgumentException
ArgumentNullException ArgumentOutOfRangeException InvalidOperationException
NotSupportedException NotImplementedException InvalidCastException Interlocked Volatile
Monitor Thread ThreadPool Debug Trace Stopwatch Buffer BitConverter Marshal Expression
Tuple ValueTuple KeyValuePair List Dictionary HashSet Delegate Func Action Attribute
"""
# The C standard library's functions and the C++ standard library's namespace.
_C_NAMES = """
printf fprintf sprintf snprintf vprintf vfprintf vsnprintf puts fputs fputc putc putchar
fopen fclose fread fwrite fflush fseek ftell fgets fgetc getc getchar scanf sscanf perror
malloc calloc realloc free memcpy memmove memset memcmp memchr strlen strcpy strncpy strcat
strncat strcmp strncmp strchr strrchr strstr strdup strndup strtol strtoul strtoll strtoull
strtod atoi atol atof abs labs exit abort atexit getenv qsort bsearch rand srand time clock
assert isalpha isdigit isspace isalnum isupper islower toupper tolower errno open close
read write lseek unlink mkdir rmdir stat fstat lstat fcntl ioctl pipe dup dup2 fork execvp
waitpid kill signal sigaction getpid sleep usleep nanosleep clock_gettime gettimeofday
pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_mutex_init
pthread_mutex_destroy pthread_cond_wait pthread_cond_signal pthread_cond_broadcast
pthread_cond_init pthread_cond_destroy pthread_once socket bind listen accept connect send
recv sendto recvfrom setsockopt getsockopt shutdown poll select epoll_create1 epoll_ctl
epoll_wait va_start va_end va_arg va_copy offsetof sizeof
"""
_CPP_NAMES = "std"

_PHP_NAMES = """
array_filter array_key_exists array_keys array_map array_merge array_pop array_push
array_reverse array_search array_shift array_slice array_splice array_unique array_values
count date define defined dirname explode file_exists file_get_contents file_put_contents
function_exists get_class gettype implode in_array intval is_array is_bool is_callable
is_int is_null is_numeric is_object is_string is_float isset json_decode json_encode
ksort lcfirst method_exists microtime number_format preg_match preg_quote preg_replace
preg_replace_callback preg_split print_r printf rtrim ltrim serialize sprintf str_contains
str_ends_with str_pad str_repeat str_replace str_starts_with strlen strpos strtolower
strtoupper substr trim ucfirst unserialize usort var_dump var_export sort uasort array_combine
array_fill array_flip array_sum max min round floor ceil abs iterator_to_array spl_object_hash
spl_object_id call_user_func call_user_func_array func_get_args compact extract end reset
key current next array_walk fopen fclose fwrite fread fgets is_resource restore_error_handler
set_error_handler trigger_error mb_strlen mb_substr mb_strtolower htmlspecialchars urlencode
Exception RuntimeException LogicException InvalidArgumentException DomainException
UnexpectedValueException OutOfBoundsException BadMethodCallException TypeError Error
ArrayIterator ArrayObject DateTime DateTimeImmutable DateTimeZone DateInterval Closure
Generator SplObjectStorage stdClass Throwable JsonException ValueError ErrorException
"""

_RUBY_NAMES = """
puts print p pp raise require require_relative loop lambda proc format sprintf sleep rand
block_given? catch throw warn abort exit at_exit binding caller fail gets Integer Float
String Array Hash Rational Complex freeze frozen? Time Date DateTime File Dir IO Kernel
Object Module Class Struct Comparable Enumerable Math Process Thread Mutex Queue JSON YAML
URI Set StringIO Regexp Range Symbol ENV ARGV STDOUT STDERR STDIN $stdout $stderr
ArgumentError RuntimeError StandardError NameError NoMethodError TypeError KeyError
IndexError NotImplementedError IOError Errno SecureRandom Base64 Digest Logger Pathname
Tempfile Open3 Shellwords ObjectSpace GC Marshal Signal Rack private protected public
module_function private_constant private_class_method autoload method methods enum_for
to_enum define_method instance_variable_get instance_variable_set instance_variable_defined?
instance_variables alias_method respond_to? send public_send __send__ tap then dup clone
is_a? kind_of? instance_of? nil? object_id singleton_class instance_eval instance_exec
class_eval module_eval const_get const_set const_defined? attr_accessor attr_reader
attr_writer include extend prepend srand trap system spawn fork __method__ __dir__
"""

# `scala.Predef`, the `scala` package and `java.lang`, seen in every Scala file.
_SCALA_NAMES = """
Some None Option Right Left Either List Nil Seq IndexedSeq Vector Map Set Array Iterator
Iterable LazyList Stream Range BigDecimal BigInt StringBuilder Tuple2 Tuple3 Ordering
Numeric PartialFunction StringContext Try Success Failure println print printf require
assert assume identity implicitly locally classOf math sys String Int Long Double Float
Boolean Char Byte Short Unit Integer Character Math System Object Exception Throwable
RuntimeException IllegalArgumentException IllegalStateException NoSuchElementException
UnsupportedOperationException NumberFormatException ArithmeticException java javax scala
"""

_JS = frozenset(_JS_NAMES.split())
_JAVA = frozenset(_JAVA_NAMES.split())
_KOTLIN = _JAVA | frozenset(_KOTLIN_NAMES.split())
_GO = frozenset(_GO_NAMES.split())
_C = frozenset(_C_NAMES.split())
_CPP = _C | frozenset(_CPP_NAMES.split())

_BY_LANG = {
    "python": frozenset(dir(builtins)),
    "typescript": _JS, "tsx": _JS, "javascript": _JS,
    "java": _JAVA, "kotlin": _KOTLIN, "go": _GO, "csharp": frozenset(_CSHARP_NAMES.split()),
    "c": _CPP, "cpp": _CPP, "php": frozenset(_PHP_NAMES.split()),
    "ruby": frozenset(_RUBY_NAMES.split()), "scala": frozenset(_SCALA_NAMES.split()),
}


# PHP's functions (thousands, from its extensions: `curl_setopt`, `mb_strlen`) are
# lower-case snake_case; the repository's own are found before this is asked.
_PHP_FUNCTION = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def is_builtin(lang: str | None, name: str | None) -> bool:
    """Whether ``name`` is predeclared in every file of language ``lang``."""
    if not name:
        return False
    if lang == "php" and _PHP_FUNCTION.fullmatch(name):
        return True
    return name in _BY_LANG.get(lang or "", frozenset())
