namespace Shop.Core.Models
{
    /// <summary>Base of every stored entity: an id and a validation hook.</summary>
    public abstract class Entity
    {
        public int Id { get; set; }

        public virtual void Validate()
        {
            if (Id < 0)
            {
                throw new InvalidOperationException("negative id");
            }
        }
    }

    public class User : Entity
    {
        public string Name { get; set; } = "";
        public string Email { get; set; } = "";
        public bool Active { get; set; } = true;

        public override void Validate()
        {
            base.Validate();
            if (!Email.Contains('@'))
            {
                throw new InvalidOperationException("bad email");
            }
        }
    }

    public class Product : Entity
    {
        public string Name { get; init; } = "";
        public decimal Price { get; init; }
    }

    public enum OrderStatus
    {
        Pending,
        Shipped,
        Cancelled,
    }

    public record OrderRequest(int ProductId, int Quantity);
}
