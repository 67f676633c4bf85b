package commerce

// Word lists of the generated devnet catalogs.

type category struct {
	nouns, adjectives, sizes []string
	minPrice, maxPrice       int // whole dollars
	fresh                    bool
}

var brands = []string{"Anker", "Hydro Flask", "Logitech", "OXO", "Lodge", "Levi's", "Nike", "Adidas", "Sony",
	"Philips", "Bose", "KitchenAid", "Cuisinart", "Patagonia", "Columbia", "Samsung", "Belkin", "Osprey",
	"Yeti", "Stanley", "Dyson", "Ninja", "Instant Pot", "Crocs", "Carhartt", "Under Armour", "JBL", "Pyrex"}

var freshBrands = []string{"Organic Valley", "Driscoll's", "Whole Foods Market", "Horizon", "Chobani",
	"Tillamook", "Dole", "Wild Planet", "Vital Farms", "Cal-Organic", "Bonne Maman", "Sweetgreen Farms"}

var colors = []string{"Black", "White", "Blue", "Navy", "Red", "Green", "Gray", "Silver", "Olive", "Pink", "Teal", "Beige"}

var shops = []string{"northwind-goods", "acme-outfitters", "blue-harbor", "maple-and-co", "summit-supply"}

var categories = []category{
	{nouns: []string{"Water Bottle", "Travel Mug", "Tumbler", "Lunch Box", "Food Container"},
		adjectives: []string{"Insulated", "Stainless Steel", "Leakproof", "Wide Mouth", "BPA-Free"},
		sizes:      []string{"20 oz", "32 oz", "40 oz", "1 L", "Set of 3"}, minPrice: 9, maxPrice: 55},
	{nouns: []string{"Charging Cable", "Power Bank", "Wall Charger", "USB Hub", "Wireless Charger"},
		adjectives: []string{"Fast", "USB-C", "Braided", "Compact", "Magnetic"},
		sizes:      []string{"3 ft", "6 ft", "10000mAh", "65W", "2-Pack"}, minPrice: 8, maxPrice: 90},
	{nouns: []string{"Headphones", "Earbuds", "Bluetooth Speaker", "Soundbar", "Gaming Headset"},
		adjectives: []string{"Wireless", "Noise Cancelling", "Waterproof", "Portable", "Over-Ear"},
		sizes:      []string{"Standard", "Pro", "Mini", "Max", "2nd Gen"}, minPrice: 19, maxPrice: 399},
	{nouns: []string{"Jeans", "T-Shirt", "Hoodie", "Rain Jacket", "Running Shoes", "Socks"},
		adjectives: []string{"Slim Fit", "Relaxed", "Classic", "Lightweight", "Organic Cotton"},
		sizes:      []string{"Size S", "Size M", "Size L", "Size XL", "32x30"}, minPrice: 12, maxPrice: 180},
	{nouns: []string{"Skillet", "Chef Knife", "Cutting Board", "Blender", "Coffee Maker", "Dutch Oven"},
		adjectives: []string{"Cast Iron", "Nonstick", "Professional", "Programmable", "Enameled"},
		sizes:      []string{"10 inch", "12 inch", "8 Cup", "6 Quart", "3-Piece"}, minPrice: 15, maxPrice: 450},
	{nouns: []string{"Backpack", "Tent", "Sleeping Bag", "Headlamp", "Trekking Poles"},
		adjectives: []string{"Ultralight", "Waterproof", "4-Season", "Rechargeable", "Collapsible"},
		sizes:      []string{"30 L", "2-Person", "20°F", "400 Lumens", "Pair"}, minPrice: 20, maxPrice: 600},
	{nouns: []string{"Wireless Mouse", "Mechanical Keyboard", "Webcam", "Monitor Stand", "Laptop Sleeve"},
		adjectives: []string{"Ergonomic", "Backlit", "1080p", "Adjustable", "Slim"},
		sizes:      []string{"Standard", "Compact", "Full Size", "13 inch", "15 inch"}, minPrice: 15, maxPrice: 250},
	{nouns: []string{"Vacuum Cleaner", "Air Purifier", "Robot Vacuum", "Humidifier", "Space Heater"},
		adjectives: []string{"Cordless", "HEPA", "Smart", "Quiet", "Compact"},
		sizes:      []string{"Standard", "Large Room", "Pet Edition", "Pro", "2-Speed"}, minPrice: 39, maxPrice: 1999},
	{nouns: []string{"Whole Milk", "Strawberries", "Blueberries", "Atlantic Salmon", "Greek Yogurt", "Large Eggs",
		"Baby Spinach", "Avocados", "Cheddar Cheese", "Chicken Breast"},
		adjectives: []string{"Organic", "Fresh", "Grass-Fed", "Wild-Caught", "Free-Range", "Farm"},
		sizes:      []string{"1 gal", "16 oz", "1 lb", "2 lb", "12 ct", "Family Pack"}, minPrice: 2, maxPrice: 24, fresh: true},
}
