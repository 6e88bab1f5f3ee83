"""The words of each language that the resolver needs to know, declared here (and named
by the language's :class:`~graphrag.parsing.registry.LanguageSpec`) so that the graph
step holds none of its own: its standard library's most common call names, how a value
type converts when an overload is chosen (:class:`Conversions`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


def words(text: str) -> frozenset[str]:
    """A whitespace-separated word list as a set."""
    return frozenset(text.split())


# Names too common in a language's standard library to link a call by its name alone
# (the unique-name fallback): a repository function of that name is rarely the callee.
SHARED_COMMON = words("""
get set add put remove delete find map filter reduce join split contains keys values
update clear close open read write run start stop send log error info debug warn next sort
copy apply call count min max parse format replace lower upper length size emit exists
encode decode sleep now main init name value iterator wait lock unlock
""")
PYTHON_COMMON = SHARED_COMMON | words("""
print append extend insert len items sorted strip range list dict str int float bool
tuple type isinstance iter enumerate zip any all abs round dumps loads mkdir exit sum pop
""")
JVM_COMMON = SHARED_COMMON | words("""
println printf toString equals hashCode forEach isEmpty trim substring startsWith endsWith
indexOf of valueOf compareTo stream collect toList toMap let also takeIf with repeat lazy
require check assert assertEquals getClass notify toLowerCase toUpperCase has
""")
JS_COMMON = SHARED_COMMON | words("""
push pop forEach has entries then catch finally bind stringify on off once trim
toLowerCase toUpperCase includes indexOf slice splice substring startsWith endsWith
require fetch setTimeout setInterval resolve reject listen use flush toString of
""")
RUST_COMMON = SHARED_COMMON | words("""
new unwrap expect clone into to_string to_owned as_ref as_mut iter into_iter push pop
len is_empty default collect ok err map_err and_then unwrap_or unwrap_or_else insert
borrow borrow_mut take fmt eq drop spawn
""")
GO_COMMON = SHARED_COMMON | words("""
Println Printf Sprintf Errorf Fatal Fatalf New make new panic recover cap len append
Error String copy close flush
""")
CSHARP_COMMON = SHARED_COMMON | words("""
ToString Equals GetHashCode GetType WriteLine Write ReadLine Format Join Split Trim
Contains Add Remove Get Set TryGetValue ContainsKey Any All First FirstOrDefault Last
LastOrDefault Single SingleOrDefault Where Select SelectMany OrderBy OrderByDescending
ToList ToArray ToDictionary Count Sum Min Max Dispose DisposeAsync ConfigureAwait Wait
Result Run Invoke BeginInvoke Parse TryParse Append AppendLine Replace Substring
StartsWith EndsWith IndexOf Clear Insert Log LogInformation LogWarning LogError LogDebug
Ok NotFound BadRequest Created NoContent Throw ThrowIfNull
""")

C_COMMON = SHARED_COMMON | words("""
printf fprintf sprintf snprintf puts malloc calloc realloc free memcpy memset strlen strcmp
strcpy abort exit assert size begin end push_back emplace_back
""")
PHP_COMMON = SHARED_COMMON | words("""
count strlen sprintf printf implode explode array_map array_filter array_keys
array_values array_merge in_array is_array is_string is_int isset unset empty json_encode
json_decode str_replace trim substr strpos preg_match preg_replace var_dump print_r
__construct __invoke __toString
""")
RUBY_COMMON = SHARED_COMMON | words("""
puts print p each map select reject each_with_object inject to_s to_i to_a to_h to_sym
raise freeze dup tap merge fetch include? empty? nil? is_a? respond_to? send
instance_variable_get define_method attr_reader require require_relative new
""")

SWIFT_COMMON = SHARED_COMMON | words("""
print debugPrint fatalError precondition preconditionFailure assert assertionFailure map
flatMap compactMap filter reduce forEach sorted contains append insert remove removeAll
first last min max count isEmpty description joined split lowercased uppercased
hasPrefix hasSuffix encode decode
""")

SCALA_COMMON = SHARED_COMMON | words("""
println print require assert map flatMap filter foreach fold foldLeft foldRight reduce
getOrElse orElse toList toSeq toMap toSet mkString contains exists forall headOption
isEmpty nonEmpty size length collect zip pure traverse sequence unsafeRunSync
""")


@dataclass(frozen=True)
class Conversions:
    """How an argument's value type meets a parameter's when an overload is chosen.

    ``canonical`` maps every spelling of a value type (primitive, boxed, other
    languages of the namespace) to one name; ``widens`` the canonical types an argument
    of the key type is accepted as; ``top`` the types that take anything; ``boxed`` the
    canonical value types that box to a library class, and ``boxes`` the supertypes such
    a boxed value can be passed as besides its own box. The other canonical types
    (``String``) are final: no repository class is one."""

    canonical: Mapping[str, str] = field(default_factory=dict)
    widens: Mapping[str, frozenset[str]] = field(default_factory=dict)
    top: frozenset[str] = frozenset()
    boxed: frozenset[str] = frozenset()
    boxes: frozenset[str] = frozenset()


NO_CONVERSIONS = Conversions()

JVM_CONVERSIONS = Conversions(
    canonical={
        "int": "int", "Integer": "int", "Int": "int", "long": "long", "Long": "long",
        "short": "short", "Short": "short", "byte": "byte", "Byte": "byte",
        "double": "double", "Double": "double", "float": "float", "Float": "float",
        "boolean": "boolean", "Boolean": "boolean", "char": "char", "Character": "char",
        "Char": "char", "String": "String", "CharSequence": "CharSequence",
    },
    widens={
        "int": frozenset({"long", "float", "double"}),
        "short": frozenset({"int", "long", "float", "double"}),
        "byte": frozenset({"short", "int", "long", "float", "double"}),
        "char": frozenset({"int", "long"}), "long": frozenset({"float", "double"}),
        "float": frozenset({"double"}), "String": frozenset({"CharSequence"}),
    },
    top=frozenset({"Object", "Any"}),
    boxed=frozenset({"int", "long", "short", "byte", "double", "float", "boolean", "char",
                     "CharSequence"}),
    boxes=frozenset({"Number", "Comparable", "Serializable", "Constable"}),
)

_CS_NUMERIC = {
    "sbyte": "short int long float double decimal",
    "byte": "short ushort int uint long ulong float double decimal",
    "short": "int long float double decimal", "ushort": "int uint long ulong float double decimal",
    "int": "long float double decimal", "uint": "long ulong float double decimal",
    "long": "float double decimal", "ulong": "float double decimal",
    "char": "ushort int uint long ulong float double decimal", "float": "double",
}
CSHARP_CONVERSIONS = Conversions(
    canonical={
        **{name: name for name in (*_CS_NUMERIC, "double", "decimal", "bool", "string")},
        "SByte": "sbyte", "Byte": "byte", "Int16": "short", "UInt16": "ushort",
        "Int32": "int", "UInt32": "uint", "Int64": "long", "UInt64": "ulong",
        "Char": "char", "Single": "float", "Double": "double", "Decimal": "decimal",
        "Boolean": "bool", "String": "string",
    },
    widens={name: words(wider) for name, wider in _CS_NUMERIC.items()},
    top=frozenset({"object", "Object", "dynamic"}),
    boxed=frozenset({*_CS_NUMERIC, "double", "decimal", "bool", "string"}),
    boxes=frozenset({"ValueType", "IComparable", "IConvertible", "IFormattable",
                     "IEquatable", "ISpanFormattable", "INumber"}),
)
