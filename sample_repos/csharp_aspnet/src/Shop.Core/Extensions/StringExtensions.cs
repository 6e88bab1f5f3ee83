namespace Shop.Core.Extensions;

public static class StringExtensions
{
    /// <summary>Lower-case words joined by dashes.</summary>
    public static string Slugify(this string text) =>
        string.Join("-", text.Trim().ToLowerInvariant().Split(' '));
}
