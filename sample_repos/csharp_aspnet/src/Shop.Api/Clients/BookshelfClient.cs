namespace Shop.Api.Clients;

/// <summary>
/// Calls the bookshelf service (the Rust axum sample) to lend books to customers.
/// </summary>
public class BookshelfClient
{
    private readonly HttpClient _http;
    private readonly string _baseUrl;

    public BookshelfClient(HttpClient http, IConfiguration configuration)
    {
        _http = http;
        _baseUrl = configuration["Bookshelf:BaseUrl"];
    }

    /// <summary>Lends a book to a member.</summary>
    public Task<HttpResponseMessage> Lend(int bookId, string member) =>
        _http.PostAsync($"{_baseUrl}/api/loans/{bookId}/{member}", null);

    /// <summary>Withdraws a book from the shelf.</summary>
    public Task<HttpResponseMessage> Withdraw(int bookId) =>
        _http.DeleteAsync(_baseUrl + "/api/books/" + bookId);
}
