"""Names every file of a language sees without declaring or importing them (Python's
builtins, JavaScript's globals, ``java.lang``, Kotlin's standard functions, Go's
predeclared functions, C#'s keywords and common ``System`` types). A call of one, or on
one (``Math.max``, ``console.log``), names
something outside the repository: the resolver records such a site as ``external``
rather than as a name it could not find."""

from __future__ import annotations

import builtins

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

_JS = frozenset(_JS_NAMES.split())
_JAVA = frozenset(_JAVA_NAMES.split())
_KOTLIN = _JAVA | frozenset(_KOTLIN_NAMES.split())
_GO = frozenset(_GO_NAMES.split())

_BY_LANG = {
    "python": frozenset(dir(builtins)),
    "typescript": _JS, "tsx": _JS, "javascript": _JS,
    "java": _JAVA, "kotlin": _KOTLIN, "go": _GO, "csharp": frozenset(_CSHARP_NAMES.split()),
}


def is_builtin(lang: str | None, name: str | None) -> bool:
    """Whether ``name`` is predeclared in every file of language ``lang``."""
    return bool(name) and name in _BY_LANG.get(lang or "", frozenset())
