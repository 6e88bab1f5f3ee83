using Shop.Core.Data;
using Shop.Core.Extensions;
using Shop.Core.Models;

namespace Shop.Api.Endpoints;

/// <summary>Handlers of the minimal API product routes.</summary>
public static class ProductEndpoints
{
    private static readonly ProductRepository Catalog = new ProductRepository();

    public static IResult GetProduct(int id)
    {
        var product = Catalog.ById(id);
        return product is null ? Results.NotFound() : Results.Ok(Describe(product));
    }

    public static IResult ListProducts()
    {
        foreach (var product in Catalog.All())
        {
            product.Validate();
        }
        return Results.Ok(Catalog.All());
    }

    public static IResult Cancel(int id) => Results.Accepted();

    private static string Describe(Product product) => product.Name.Slugify();
}
