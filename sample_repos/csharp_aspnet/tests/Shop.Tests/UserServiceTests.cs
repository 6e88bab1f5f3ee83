using Shop.Core.Data;
using Shop.Core.Services;
using Xunit;

namespace Shop.Tests;

public class UserServiceTests
{
    [Fact]
    public void RegisterStoresTheUser()
    {
        var service = new UserService(new UserRepository());
        var user = service.Register("Ada Lovelace", "ada@example.com");
        Assert.Equal(user.Id, service.Find(user.Id)!.Id);
    }
}
